"""gunicorn's access line in the application's formats (``core.logs.GunicornAccessFilter``): the
request id from the response's ``X-Request-ID``, the request's fields, in text as in JSON."""

import json
import logging

from gunicorn.glogging import SafeAtoms

from core.logs import GunicornAccessFilter, JsonFormatter, TextFormatter

FORMAT = '%(h)s "%({x-forwarded-for}i)s" %(u)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s"'  # deploy/gunicorn.conf.py


def access_record(**atoms) -> logging.LogRecord:
    values = {
        "h": "10.0.0.7",
        "u": "-",
        "r": "POST /api/rounds/9/bets HTTP/1.1",
        "s": "201",
        "m": "POST",
        "U": "/api/rounds/9/bets",
        "b": "312",
        "B": 312,
        "a": 'dealer-tablet "R1"',
        "D": 12_345,
        "M": 12,
        "{x-forwarded-for}i": "203.0.113.9",
        "{x-request-id}o": "7f3a9c0e",
        **atoms,
    }
    record = logging.LogRecord("gunicorn.access", logging.INFO, __file__, 1, FORMAT, (SafeAtoms(values),), None)
    assert GunicornAccessFilter().filter(record)
    return record


def test_a_json_access_line_carries_the_responses_request_id_and_the_requests_fields():
    line = json.loads(JsonFormatter().format(access_record()))
    del line["time"]
    assert line == {
        "level": "INFO",
        "logger": "gunicorn.access",
        "message": '10.0.0.7 "203.0.113.9" - "POST /api/rounds/9/bets HTTP/1.1" 201 312 12ms "dealer-tablet \\"R1\\""',
        "request_id": "7f3a9c0e",
        "method": "POST",
        "path": "/api/rounds/9/bets",
        "status": 201,
        "duration_ms": 12.3,
        "bytes": 312,
        "remote_addr": "10.0.0.7",
        "forwarded_for": "203.0.113.9",
        "user_agent": 'dealer-tablet "R1"',
    }


def test_a_text_access_line_names_the_request_id_as_the_applications_lines_do():
    line = TextFormatter().format(access_record())
    assert line.split(" ", 1)[1] == (
        'INFO gunicorn.access [req=7f3a9c0e] 10.0.0.7 "203.0.113.9" - "POST /api/rounds/9/bets HTTP/1.1" 201 312 '
        '12ms "dealer-tablet \\"R1\\""'
    )


def test_a_response_without_request_id_keeps_the_clients_tame_one_and_drops_a_wild_one():
    unanswered = {"{x-request-id}o": None}
    tame = access_record(**unanswered, **{"{x-request-id}i": "lb-5f2e"})
    wild = access_record(**unanswered, **{"{x-request-id}i": 'x" "forged'})
    assert tame.request_id == "lb-5f2e"
    assert not hasattr(wild, "request_id")
