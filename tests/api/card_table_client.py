"""What the API tests' card-table drivers share: a table's coup driven through the API, each
call returning the response (the test checks the status), so a 500 shows as a status, not an
exception. A game's driver opens its table and adds its own moves."""


class CardTableClient:
    """The coup at ``self.code`` through ``self.api`` (both set by the game's driver);
    ``self.round`` is the coup last opened."""

    def post(self, path, body=None, **headers):
        return self.api.post(path, body or {}, format="json", **headers)

    def open(self):
        r = self.post(f"/api/tables/{self.code}/rounds")
        assert r.status_code == 201, r.json()
        self.round = r.json()["round"]
        return self.round

    def close(self):
        return self.post(f"/api/rounds/{self.round}/close-bets")

    def deal(self):
        return self.post(f"/api/rounds/{self.round}/deal")

    def dealt(self, place, entries):
        """Open a coup, ``place(*entry)`` for each entry (each must answer 201), close the bets
        and deal; returns the deal's body."""
        self.open()
        for entry in entries:
            r = place(*entry)
            assert r.status_code == 201, r.json()
        assert self.close().status_code == 200
        r = self.deal()
        assert r.status_code == 200, r.json()
        return r.json()

    def card(self, card):
        return self.post(f"/api/rounds/{self.round}/cards", {"card": card})

    def cards(self, *cards):
        """Report ``cards`` in order (each must answer 200); returns the last body."""
        body = None
        for card in cards:
            r = self.card(card)
            assert r.status_code == 200, (card, r.json())
            body = r.json()
        return body
