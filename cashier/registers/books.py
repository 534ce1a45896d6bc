"""One builder per French register, each returning a ``Register`` of typed rows read from the
ledger (``Event.objects`` and ``Posting.objects``: the authentic chain, never a mutable row).

Amounts are integer cents. A correction is never an erasure: the original line stays as it was
recorded and a *compensating* line (``line == "rectification"``) carries the opposite amounts,
naming the event it compensates; the register's sum is the corrected figure.

Legal basis: arrêté du 14 mai 2007 relatif à la réglementation des jeux dans les casinos (art. 69
as rewritten by the arrêté du 29 juillet 2009: carnets d'avances modèle n° 10 per table and
séance; registre de contrôle modèle n° 12 totalled, closed and signed each day), and the
definition of the produit brut des jeux of the games played against the house: the difference
between the cumulated advances (initial and complementary) and the takings found at the end of
the séance (décret n° 59-1489, now code de la sécurité intérieure; a negative result is deducted
from the following days' profits). docs/registers.md gives each column's source and says where a
column's exact title is not certain.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import Q, Sum

from basis.money import format_cents_fr
from games.names import game_name
from ledger import accounts
from ledger.models import Event, Posting

from .. import reports
from ..services.gaming_day import table_codes_active

ARRETE = "Arrêté du 14 mai 2007 relatif à la réglementation des jeux dans les casinos"
# The gaming season (saison des jeux) the levy book cumulates over: French casinos count it
# from 1 November to 31 October; the authorisation may say otherwise (setting CASINO_SEASON_START).
DEFAULT_SEASON_START = (11, 1)
MAIN_BANK = "Banque principale (sans guichet)"
TOTAL = "Total"


@dataclass(frozen=True)
class Column:
    """A register's column: ``key`` (the row's attribute), ``title`` (as the register names it),
    ``source`` (the text it comes from, or a note that its exact title is ours), ``money``: cents."""

    key: str
    title: str
    source: str = ""
    money: bool = False


@dataclass(frozen=True)
class Register:
    """A register for gaming ``day``: ``rows`` are instances of one row dataclass, laid out by
    ``columns``; ``empty_reason``: why it has no entry (written on it as "Néant"); ``notes``: what
    the reader must know to read it; ``signatures``: who signs it on paper."""

    slug: str
    model: str
    title: str
    basis: str
    period: str
    day: date
    columns: tuple[Column, ...]
    rows: tuple
    empty_reason: str = ""
    notes: tuple[str, ...] = ()
    signatures: tuple[str, ...] = ()

    def values(self, row) -> list:
        return [getattr(row, column.key) for column in self.columns]


def _local(moment: datetime | None) -> str:
    if moment is None:
        return ""
    zone = ZoneInfo(settings.CASINO_TIMEZONE)
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M %Z")


def season_start(day: date) -> date:
    """The first day of the gaming season ``day`` is in (``CASINO_SEASON_START``: (month, day))."""
    month, first = getattr(settings, "CASINO_SEASON_START", DEFAULT_SEASON_START)
    start = date(day.year, month, first)
    return start if start <= day else date(day.year - 1, month, first)


# ---------------------------------------------------------------- model 10: carnet d'avances


@dataclass(frozen=True)
class AdvanceLine:
    """A line of the carnet d'avances: a séance of a table, or a compensating line."""

    table: str
    game: str
    seance: int
    line: str  # "séance" | "rectification"
    label: str
    opened_at: str
    closed_at: str
    avance_initiale_cents: int
    avances_complementaires_cents: int
    plaques_jetons_fin_cents: int
    retraits_cents: int
    caisse_cents: int
    jetons_couleur_dehors_cents: int
    encaisse_fin_cents: int
    pbj_cents: int
    recorded_day: date
    events: str
    compense: str = ""


ENCAISSE_PART = "ours (part of l'encaisse)"
ADVANCE_COLUMNS = (
    Column("table", "Table"),
    Column("game", "Jeu"),
    Column("seance", "Séance n°", "art. 69 a): tenus par table et par séance"),
    Column("label", "Nature de la ligne", "ours (séance, or a correction by compensation)"),
    Column("opened_at", "Ouverture"),
    Column("closed_at", "Clôture"),
    Column("avance_initiale_cents", "Avance initiale", "art. 69 a)", True),
    Column("avances_complementaires_cents", "Avances complémentaires", "art. 69 a)", True),
    Column(
        "plaques_jetons_fin_cents", "Plaques et jetons à la table en fin de séance", "ours (part of l'encaisse)", True
    ),
    Column("retraits_cents", "Plaques et jetons retirés en cours de séance", "ours (part of l'encaisse)", True),
    Column("caisse_cents", "Billets de la caisse de table", "ours (part of l'encaisse)", True),
    Column("jetons_couleur_dehors_cents", "Jetons de couleur non rendus", "ours (deducted from l'encaisse)", True),
    Column("encaisse_fin_cents", "Encaisse constatée en fin de séance", "art. 69 a)", True),
    Column("pbj_cents", "Produit brut", "encaisse − (avance initiale + avances complémentaires)", True),
    Column("compense", "Ligne compensée", "ours"),
    Column("events", "Réf. grand livre", "ours (ledger positions)"),
)


def _game_of(table: str, day: date) -> str:
    opened = (
        Event.objects.filter(stream=f"table/{table}", type="TableOpened", gaming_day__lte=day)
        .order_by("-position")
        .values_list("data__game", flat=True)
        .first()
    )
    return game_name(opened) if opened else ""


def _tray(table: str, day: date, *, before: bool) -> int:
    where = Q(event__gaming_day__lt=day) if before else Q(event__gaming_day__lte=day)
    total = Posting.objects.filter(where, account=accounts.table_tray(table)).aggregate(s=Sum("amount_cents"))["s"]
    return total or 0


@dataclass
class _Seance:
    start: int
    opener: int
    opened_at: datetime | None
    events: list[int]
    end: int | None = None
    closer: int | None = None
    closed_at: datetime | None = None
    fills: int = 0
    credits: int = 0
    buy_ins: int = 0
    colour_out: int = 0


def _seances(table: str, day: date) -> list[_Seance]:
    """The table's séances of ``day``: from each ``TableOpened`` to its ``TableClosed``; a table
    open since an earlier day starts with the tray's book at the day's start, and one still open
    at the day's end ends with the tray's book then (as the count-room report takes them)."""
    sessions = Event.objects.filter(
        stream=f"table/{table}", type__in=["TableOpened", "TableClosed"], gaming_day=day
    ).order_by("position")
    found: list[_Seance] = []
    current: _Seance | None = None
    for event in sessions:
        if event.type == "TableOpened":
            current = _Seance(event.position, event.data["opener_cents"], event.occurred_at, [event.position])
            found.append(current)
            continue
        if current is None:
            current = _Seance(0, _tray(table, day, before=True), None, [])
            found.append(current)
        current.end, current.closer, current.closed_at = event.position, event.data["closer_cents"], event.occurred_at
        current.events.append(event.position)
        current = None
    if not found:
        found.append(_Seance(0, _tray(table, day, before=True), None, []))
    if found[-1].closer is None:
        found[-1].closer = _tray(table, day, before=False)
    return found


def _seance_of(seances: list[_Seance], position: int) -> _Seance:
    """The séance a movement belongs to: the last one started before it (the first otherwise)."""
    chosen = seances[0]
    for seance in seances:
        if seance.start <= position:
            chosen = seance
    return chosen


def _correction(
    table: str, game: str, seance: int, event: Event, label: str, compensates: str, **amounts
) -> AdvanceLine:
    figures = {
        "avance_initiale_cents": 0,
        "avances_complementaires_cents": 0,
        "plaques_jetons_fin_cents": 0,
        "retraits_cents": 0,
        "caisse_cents": 0,
        "jetons_couleur_dehors_cents": 0,
    } | amounts
    encaisse = (
        figures["plaques_jetons_fin_cents"]
        + figures["retraits_cents"]
        + figures["caisse_cents"]
        - figures["jetons_couleur_dehors_cents"]
    )
    return AdvanceLine(
        table=table,
        game=game,
        seance=seance,
        line="rectification",
        label=label,
        opened_at=_local(event.occurred_at),
        closed_at="",
        encaisse_fin_cents=encaisse,
        pbj_cents=encaisse - figures["avance_initiale_cents"] - figures["avances_complementaires_cents"],
        recorded_day=event.gaming_day,
        events=str(event.position),
        compense=compensates,
        **figures,
    )


def table_advances(table: str, day: date) -> list[AdvanceLine]:
    """The carnet d'avances lines of ``table`` for gaming ``day``: one per séance, then the
    compensating lines (fill and credit reversals of the day, the count of the day's cash box
    against the buy-ins recorded, a count reversed)."""
    game = _game_of(table, day)
    seances = _seances(table, day)
    on_day = Event.objects.filter(gaming_day=day, data__table=table)
    for event in on_day.filter(type="FillDelivered").order_by("position"):
        seance = _seance_of(seances, event.position)
        seance.fills += event.data["amount_cents"]
        seance.events.append(event.position)
    for event in on_day.filter(type="CreditDelivered").order_by("position"):
        seance = _seance_of(seances, event.position)
        seance.credits += event.data["amount_cents"]
        seance.events.append(event.position)
    for position, amount in on_day.filter(type="CashBuyIn").values_list("position", "data__amount_cents"):
        _seance_of(seances, position).buy_ins += amount
    colour = Posting.objects.filter(account=accounts.table_colour_issued(table), event__gaming_day=day)
    for position, amount in colour.values_list("event_id", "amount_cents"):
        _seance_of(seances, position).colour_out -= amount
    lines = []
    for number, seance in enumerate(seances, start=1):
        encaisse = seance.closer + seance.credits + seance.buy_ins - seance.colour_out
        lines.append(
            AdvanceLine(
                table=table,
                game=game,
                seance=number,
                line="séance",
                label="Séance" if seance.end is not None else "Séance non close (encaisse = livre)",
                opened_at=_local(seance.opened_at),
                closed_at=_local(seance.closed_at),
                avance_initiale_cents=seance.opener,
                avances_complementaires_cents=seance.fills,
                plaques_jetons_fin_cents=seance.closer,
                retraits_cents=seance.credits,
                caisse_cents=seance.buy_ins,
                jetons_couleur_dehors_cents=seance.colour_out,
                encaisse_fin_cents=encaisse,
                pbj_cents=encaisse - seance.opener - seance.fills,
                recorded_day=day,
                events=";".join(str(p) for p in sorted(seance.events)),
            )
        )
    lines.extend(_corrections(table, game, day, seances))
    return lines


def _corrections(table: str, game: str, day: date, seances: list[_Seance]) -> list[AdvanceLine]:
    number = {id(s): n for n, s in enumerate(seances, start=1)}
    found: list[tuple[int, AdvanceLine]] = []
    reversals = Event.objects.filter(gaming_day=day, data__table=table, type__in=["FillReversed", "CreditReversed"])
    for event in reversals.order_by("position"):
        amount = event.data["amount_cents"]
        seance = number[id(_seance_of(seances, event.data["reverses"]))]
        what = f"événement {event.data['reverses']} (bon {event.data.get('slip', '')})"
        if event.type == "FillReversed":
            line = _correction(
                table,
                game,
                seance,
                event,
                "Annulation d'une avance complémentaire",
                what,
                avances_complementaires_cents=-amount,
            )
        else:
            line = _correction(
                table,
                game,
                seance,
                event,
                "Annulation d'un retrait de plaques et jetons",
                what,
                retraits_cents=-amount,
            )
        found.append((event.position, line))
    # The cash box is counted once a day: its count replaces the buy-ins recorded at the table by
    # a compensating line of the difference, on the last séance (the box is the day's, not a séance's).
    counts = Event.objects.filter(type__in=["DropCounted", "DropCountReversed"], data__table=table)
    counts = counts.filter(data__gaming_day=day.isoformat()).order_by("position")
    variances = {}
    for event in counts:
        if event.type == "DropCounted":
            variances[event.position] = event.data["variance_cents"]
            line = _correction(
                table,
                game,
                len(seances),
                event,
                "Comptée de la caisse: écart sur les billets enregistrés",
                "",
                caisse_cents=event.data["variance_cents"],
            )
        else:
            reversed_variance = variances.get(event.data["reverses"])
            if reversed_variance is None:
                reversed_variance = Event.objects.get(position=event.data["reverses"]).data["variance_cents"]
            line = _correction(
                table,
                game,
                len(seances),
                event,
                "Annulation d'une comptée de la caisse",
                f"événement {event.data['reverses']}",
                caisse_cents=-reversed_variance,
            )
        found.append((event.position, line))
    return [line for _, line in sorted(found, key=lambda pair: pair[0])]


def model_10(day: date) -> Register:
    """Carnet d'avances (modèle n° 10): every table played on ``day``, per séance (``AdvanceLine``)."""
    rows = [line for table in table_codes_active(day, day) for line in table_advances(table, day)]
    return Register(
        slug="modele-10",
        model="10",
        title="Carnet d'avances (jeux de contrepartie)",
        basis=f"{ARRETE}, art. 69 a)",
        period="par table et par séance",
        day=day,
        columns=ADVANCE_COLUMNS,
        rows=tuple(rows),
        empty_reason="" if rows else "aucune table de contrepartie n'a joué ce jour",
        notes=(
            "Encaisse = plaques et jetons à la table en fin de séance + retirés en cours de séance + billets "
            "de la caisse de table − jetons de couleur non rendus; produit brut = encaisse − avance initiale − "
            "avances complémentaires.",
            "Les billets de la caisse sont ceux enregistrés à la table; la comptée de la caisse (une par jour) "
            "les rectifie par une ligne de compensation. Une correction n'efface jamais une ligne: elle en "
            "ajoute une de signe contraire.",
        ),
        signatures=("Chef de table", "Membre du comité de direction"),
    )


# ---------------------------------------------------------- model 12: registre de contrôle


@dataclass(frozen=True)
class ControlLine:
    """A table's day on the registre de contrôle, with the count room's figures beside it."""

    table: str
    game: str
    seances: int
    avance_initiale_cents: int
    avances_complementaires_cents: int
    encaisse_fin_cents: int
    rectifications_cents: int
    pbj_cents: int
    drop_cents: int
    win_cents: int
    ecart_cents: int
    explication: str


CONTROL_COLUMNS = (
    Column("table", "Table"),
    Column("game", "Jeu"),
    Column("seances", "Séances", "ours"),
    Column("avance_initiale_cents", "Avances initiales (modèle 10)", "art. 69 c): résultats des carnets", True),
    Column("avances_complementaires_cents", "Avances complémentaires (modèle 10)", "art. 69 c)", True),
    Column("encaisse_fin_cents", "Encaisses de fin de séance (modèle 10)", "art. 69 c)", True),
    Column("rectifications_cents", "Rectifications par compensation (modèle 10)", "ours", True),
    Column("pbj_cents", "Produit brut de la journée", "art. 69 c)", True),
    Column("drop_cents", "Drop compté (rapport des tables)", "ours: the count room's figure", True),
    Column("win_cents", "Win (rapport des tables)", "ours: the count room's figure", True),
    Column("ecart_cents", "Écart win − produit brut", "ours", True),
    Column("explication", "Explication de l'écart", "ours"),
)


def _explain(table: str, day: date) -> tuple[int, str]:
    """The expected ``win − PBJ`` of a table's day and its reasons, line by line: the count-room
    win spans the day (closer of the last séance − opener of the first), the PBJ each séance, so
    a table closed and opened again adds what its tray changed by between the two counts."""
    seances = _seances(table, day)
    reasons, expected = [], 0
    for before, after in zip(seances, seances[1:], strict=False):
        gap = after.opener - before.closer
        if gap:
            expected += gap
            reasons.append(
                f"réouverture à {_local(after.opened_at)}: plaques et jetons à la clôture "
                f"{reports_money(before.closer)}, avance initiale comptée {reports_money(after.opener)}"
            )
    return expected, "; ".join(reasons)


def reports_money(cents: int) -> str:
    """An amount in a register's words, in French typography (``1 234,56 EUR``)."""
    return format_cents_fr(cents)


def euros(cents: int) -> str:
    """``-123456`` → ``"-1234.56"``: exact, from integer cents."""
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"


def control_lines(day: date) -> list[ControlLine]:
    """Per table of ``day``: the carnet d'avances' totals, and the count room's drop and win
    (``cashier.reports.table_figures``) with ``ecart = win − PBJ``, explained."""
    lines = []
    for table in table_codes_active(day, day):
        advances = table_advances(table, day)
        figures = reports.table_figures(table, day, day)
        pbj = sum(line.pbj_cents for line in advances)
        ecart = figures["win_cents"] - pbj
        expected, why = _explain(table, day)
        if ecart != expected:
            why = "; ".join(filter(None, [why, f"écart non expliqué de {reports_money(ecart - expected)}"]))
        seances = [line for line in advances if line.line == "séance"]
        lines.append(
            ControlLine(
                table=table,
                game=advances[0].game,
                seances=len(seances),
                avance_initiale_cents=sum(line.avance_initiale_cents for line in seances),
                avances_complementaires_cents=sum(line.avances_complementaires_cents for line in seances),
                encaisse_fin_cents=sum(line.encaisse_fin_cents for line in seances),
                rectifications_cents=sum(line.pbj_cents for line in advances if line.line == "rectification"),
                pbj_cents=pbj,
                drop_cents=figures["drop_cents"],
                win_cents=figures["win_cents"],
                ecart_cents=ecart,
                explication=why or ("aucun" if not ecart else ""),
            )
        )
    if lines:
        lines.append(
            ControlLine(
                table=TOTAL,
                game="",
                seances=sum(line.seances for line in lines),
                **{
                    key: sum(getattr(line, key) for line in lines)
                    for key in (
                        "avance_initiale_cents",
                        "avances_complementaires_cents",
                        "encaisse_fin_cents",
                        "rectifications_cents",
                        "pbj_cents",
                        "drop_cents",
                        "win_cents",
                        "ecart_cents",
                    )
                },
                explication="",
            )
        )
    return lines


def model_12(day: date) -> Register:
    """Registre de contrôle (modèle n° 12) of ``day``: the carnets d'avances totalled per table."""
    rows = control_lines(day)
    return Register(
        slug="modele-12",
        model="12",
        title="Registre de contrôle journalier",
        basis=f"{ARRETE}, art. 69 c): totalisé, arrêté et visé à la fin de chaque journée",
        period="par journée",
        day=day,
        columns=CONTROL_COLUMNS,
        rows=tuple(rows),
        empty_reason="" if rows else "aucune table de contrepartie n'a joué ce jour",
        notes=(
            "Les colonnes drop et win sont celles du rapport des tables (salle de comptage), mises à côté "
            "du produit brut pour montrer leur accord; l'écart est expliqué ligne par ligne.",
        ),
        signatures=("Directeur responsable", "Membre du comité de direction"),
    )


# --------------------------------------------------------- model 13: carnet des prélèvements


@dataclass(frozen=True)
class LevyLine:
    """A gaming day of the season on the carnet des prélèvements."""

    day: date
    pbj_seances_cents: int
    rectifications_cents: int
    pbj_jour_cents: int
    perte_reportee_cents: int
    base_cents: int
    perte_a_reporter_cents: int
    cumul_saison_cents: int
    prelevements: str


LEVY_COLUMNS = (
    Column("day", "Journée"),
    Column("pbj_seances_cents", "Produit brut des séances (modèle 12)", "report of the registre de contrôle", True),
    Column("rectifications_cents", "Rectifications enregistrées ce jour", "ours: compensation in the next entry", True),
    Column("pbj_jour_cents", "Produit brut de la journée", "", True),
    Column(
        "perte_reportee_cents",
        "Perte des jours précédents à déduire",
        "the loss is deducted from the following days",
        True,
    ),
    Column("base_cents", "Produit brut après déduction", "", True),
    Column("perte_a_reporter_cents", "Perte restant à reporter", "", True),
    Column("cumul_saison_cents", "Cumul de la saison", "", True),
    Column("prelevements", "Prélèvements", "not computed: see notes"),
)
NO_RATES = "non calculés: le barème des prélèvements n'est pas paramétré dans ce logiciel"


def levy_lines(day: date) -> list[LevyLine]:
    """Each gaming day of the season up to ``day`` with table play or a correction recorded: the
    PBJ of its séances, the corrections recorded that day (whatever day they correct: an entry
    already made is never changed, the next one compensates), and the carried loss."""
    start = season_start(day)
    days = set(
        Event.objects.filter(gaming_day__range=(start, day), stream__startswith="table/")
        .order_by()
        .values_list("gaming_day", flat=True)
        .distinct()
    )
    days |= set(
        Event.objects.filter(
            gaming_day__range=(start, day),
            type__in=["FillReversed", "CreditReversed", "DropCounted", "DropCountReversed", "FillDelivered"],
        )
        .order_by()
        .values_list("gaming_day", flat=True)
        .distinct()
    )
    seance_pbj: dict[date, int] = defaultdict(int)
    corrections: dict[date, int] = defaultdict(int)
    for played in sorted(days):
        for table in table_codes_active(played, played):
            for line in table_advances(table, played):
                if line.line == "séance":
                    seance_pbj[played] += line.pbj_cents
                elif start <= line.recorded_day <= day:
                    corrections[line.recorded_day] += line.pbj_cents
    lines, carried, cumul = [], 0, 0
    for when in sorted(set(seance_pbj) | set(corrections)):
        pbj = seance_pbj[when] + corrections[when]
        cumul += pbj
        net = pbj - carried
        base, after = (net, 0) if net >= 0 else (0, -net)
        lines.append(
            LevyLine(
                day=when,
                pbj_seances_cents=seance_pbj[when],
                rectifications_cents=corrections[when],
                pbj_jour_cents=pbj,
                perte_reportee_cents=carried,
                base_cents=base,
                perte_a_reporter_cents=after,
                cumul_saison_cents=cumul,
                prelevements=NO_RATES,
            )
        )
        carried = after
    return lines


def model_13(day: date) -> Register:
    """Carnet des prélèvements (modèle n° 13): ``levy_lines`` of the season up to ``day``."""
    rows = levy_lines(day)
    return Register(
        slug="modele-13",
        model="13",
        title="Carnet des prélèvements",
        basis=f"{ARRETE} (carnet des prélèvements, modèle n° 13)",
        period=f"par journée, cumulé sur la saison depuis le {season_start(day).isoformat()}",
        day=day,
        columns=LEVY_COLUMNS,
        rows=tuple(rows),
        empty_reason="" if rows else "aucun produit brut dans la saison",
        notes=(
            "Une journée déjà inscrite n'est jamais modifiée: une correction enregistrée plus tard figure dans "
            "la colonne des rectifications du jour où elle est enregistrée.",
            f"Prélèvements {NO_RATES}.",
        ),
        signatures=("Directeur responsable",),
    )


# ----------------------------------------------------- model 16: registre des plaques et jetons


@dataclass(frozen=True)
class ChipsLine:
    """A movement of the cage's stock of value chips (plaques et jetons), or a position."""

    designation: str
    entrees_cents: int
    sorties_cents: int
    stock_cents: int


CHIPS_COLUMNS = (
    Column("designation", "Désignation", "column titles are ours: see docs/registers.md"),
    Column("entrees_cents", "Entrées", "", True),
    Column("sorties_cents", "Sorties", "", True),
    Column("stock_cents", "Stock", "", True),
)
CHIP_MOVEMENT_WORDS = {
    "bankroll_chips": "Dotation de la caisse (fonds de roulement)",
    "chips_sold": "Ventes de plaques et jetons aux joueurs",
    "chips_redeemed": "Rachats de plaques et jetons aux joueurs",
    "fills": "Avances complémentaires aux tables",
    "credits": "Retraits des tables",
    "marker_chips": "Crédits (markers) en plaques et jetons",
    "window_chip_variances": "Écarts de comptage des guichets",
    "reversals_chips": "Annulations d'opérations de change",
    "foreign_exchange_chips": "Achats de billets étrangers payés en plaques et jetons",
}


def _balance(account_filter: Q, **until) -> int:
    return Posting.objects.filter(account_filter, **until).aggregate(s=Sum("amount_cents"))["s"] or 0


def chips_lines(day: date) -> list[ChipsLine]:
    """The cage's value chips on ``day``: the stock brought forward, each kind of movement in
    and out (``cashier.reports.CAGE_MOVEMENTS``, by its postings), the stock at the end; then
    where the chips outside the cage stood at the end of the day (trays, in transit, patrons)."""
    cage = Q(account=accounts.CAGE_CHIPS)
    stock = _balance(cage, event__gaming_day__lt=day)
    lines = [ChipsLine("Stock au début de la journée", 0, 0, stock)]
    itemised = 0
    for name, account, types in reports.CAGE_MOVEMENTS:
        if account != accounts.CAGE_CHIPS:
            continue
        moved = _balance(cage, event__gaming_day=day, event__type__in=types)
        if moved:
            itemised += moved
            stock += moved
            lines.append(ChipsLine(CHIP_MOVEMENT_WORDS[name], max(moved, 0), max(-moved, 0), stock))
    other = _balance(cage, event__gaming_day=day) - itemised
    if other:
        stock += other
        lines.append(ChipsLine("Autres mouvements", max(other, 0), max(-other, 0), stock))
    lines.append(ChipsLine("Stock en fin de journée (caisse)", 0, 0, stock))
    end = {"event__gaming_day__lte": day}
    lines.append(
        ChipsLine(
            "Aux tables (plateaux) en fin de journée",
            0,
            0,
            _balance(Q(account__startswith="table:", account__endswith=":tray"), **end),
        )
    )
    lines.append(
        ChipsLine("En transit (avances émises non reçues)", 0, 0, _balance(Q(account=accounts.CHIPS_IN_TRANSIT), **end))
    )
    lines.append(
        ChipsLine(
            "Entre les mains des joueurs",
            0,
            0,
            _balance(Q(account__startswith="patron:", account__endswith=":chips"), **end),
        )
    )
    return lines


def model_16(day: date) -> Register:
    """Registre des plaques et jetons (modèle n° 16): ``chips_lines`` of ``day`` (cents)."""
    return Register(
        slug="modele-16",
        model="16",
        title="Registre des plaques et jetons",
        basis=f"{ARRETE} (registre des plaques et jetons, modèle n° 16)",
        period="par journée",
        day=day,
        columns=CHIPS_COLUMNS,
        rows=tuple(chips_lines(day)),
        notes=(
            "En valeur: le grand livre tient la valeur des plaques et jetons de la caisse, pas leur nombre "
            "par coupure à chaque mouvement.",
        ),
        signatures=("Caissier principal", "Membre du comité de direction"),
    )


# ---------------------------------------------------------------- model 11 bis: orphans


@dataclass(frozen=True)
class OrphanLine:
    day: date
    nature: str
    montant_cents: int
    events: str


ORPHAN_COLUMNS = (
    Column("day", "Date", "column titles are ours: see docs/registers.md"),
    Column("nature", "Nature (somme trouvée, gain non réclamé)"),
    Column("montant_cents", "Montant", "", True),
    Column("events", "Réf. grand livre"),
)
# The ledger's event kinds that would be entered here; none exists yet.
ORPHAN_EVENTS: tuple[str, ...] = ()
NO_ORPHAN_EVENT = (
    "le logiciel n'enregistre ni somme trouvée ni gain non réclamé: le grand livre n'a aucun événement "
    "de ce type, ces sommes restent tenues hors du logiciel"
)


def model_11_bis(day: date) -> Register:
    """Sums found and winnings not claimed (modèle n° 11 bis): the events of ``ORPHAN_EVENTS`` of
    ``day``; none exists in the ledger yet, so the register says "Néant" with the reason."""
    rows = tuple(
        OrphanLine(day, event.type, event.data.get("amount_cents", 0), str(event.position))
        for event in Event.objects.filter(gaming_day=day, type__in=ORPHAN_EVENTS).order_by("position")
    )
    return Register(
        slug="modele-11-bis",
        model="11 bis",
        title="Registre des sommes trouvées et gains non réclamés",
        basis=f"{ARRETE} (modèle n° 11 bis)",
        period="par journée",
        day=day,
        columns=ORPHAN_COLUMNS,
        rows=rows,
        empty_reason="" if rows else NO_ORPHAN_EVENT,
        signatures=("Directeur responsable",),
    )


# ------------------------------------------------------------------ model 22: tronc


@dataclass(frozen=True)
class TipsLine:
    nature: str
    tronc: str
    detail: str
    jetons_cents: int
    especes_cents: int
    montant_cents: int
    points: int | str
    events: str


TIPS_COLUMNS = (
    Column("nature", "Opération", "column titles are ours: see docs/registers.md"),
    Column("tronc", "Tronc"),
    Column("detail", "Compteurs / bénéficiaire"),
    Column("jetons_cents", "Plaques et jetons", "", True),
    Column("especes_cents", "Espèces", "", True),
    Column("montant_cents", "Montant", "", True),
    Column("points", "Points"),
    Column("events", "Réf. grand livre"),
)


def _box_words(box: dict) -> str:
    ((kind, code),) = box.items()
    return f"table {code}" if kind == "table" else f"personnel {code}"


def tips_lines(day: date) -> list[TipsLine]:
    """The tips boxes counted for ``day`` (``TipsCounted`` naming it) and the tronc's
    share-outs made on ``day`` (``TroncShared``), one line a beneficiary."""
    lines = []
    counts = Event.objects.filter(type="TipsCounted", data__gaming_day=day.isoformat()).order_by("position")
    for event in counts:
        data = event.data
        lines.append(
            TipsLine(
                "Comptage du tronc",
                _box_words(data["box"]),
                f"{', '.join(data['counters'])}; responsable {data['manager']}",
                data["chips_cents"],
                data["cash_cents"],
                data["total_cents"],
                "",
                str(event.position),
            )
        )
    for event in Event.objects.filter(type="TroncShared", gaming_day=day).order_by("position"):
        for share in event.data["shares"]:
            lines.append(
                TipsLine(
                    "Répartition",
                    "masse",
                    share["username"],
                    0,
                    0,
                    -share["share_cents"],
                    share["points"],
                    str(event.position),
                )
            )
        if event.data["carried_cents"]:
            lines.append(TipsLine("Reste en masse (arrondi)", "masse", "", 0, 0, 0, "", str(event.position)))
    return lines


def model_22(day: date) -> Register:
    """The tronc (modèle n° 22): ``tips_lines`` of ``day`` (cents)."""
    rows = tips_lines(day)
    return Register(
        slug="modele-22",
        model="22",
        title="Registre du tronc (pourboires)",
        basis=f"{ARRETE} (modèle n° 22)",
        period="par journée",
        day=day,
        columns=TIPS_COLUMNS,
        rows=tuple(rows),
        empty_reason="" if rows else "aucun tronc compté ni réparti ce jour",
        notes=("Une répartition est portée en négatif: elle sort de la masse.",),
        signatures=("Membres du comité de direction présents au comptage",),
    )


# ------------------------------------------------------- change register, per cashier desk


@dataclass(frozen=True)
class ChangeLine:
    desk: str
    occurred_at: str
    operation: str
    patron: str
    especes_recues_cents: int
    especes_remises_cents: int
    jetons_remis_cents: int
    jetons_recus_cents: int
    caissier: str
    events: str
    compense: str = ""


CHANGE_COLUMNS = (
    Column("desk", "Caisse (guichet)", "column titles are ours: see docs/registers.md"),
    Column("occurred_at", "Heure"),
    Column("operation", "Opération"),
    Column("patron", "Joueur"),
    Column("especes_recues_cents", "Espèces reçues", "", True),
    Column("especes_remises_cents", "Espèces remises", "", True),
    Column("jetons_remis_cents", "Plaques et jetons remis", "", True),
    Column("jetons_recus_cents", "Plaques et jetons rachetés (change inverse)", "", True),
    Column("caissier", "Caissier"),
    Column("compense", "Ligne compensée"),
    Column("events", "Réf. grand livre"),
)
CHANGE_EVENTS = (
    "ChipsPurchased",
    "ChipsRedeemed",
    "ChipsPurchaseReversed",
    "ChipsRedemptionReversed",
    "ForeignCurrencyExchanged",
    "ForeignExchangeReversed",
)


def change_lines(day: date) -> list[ChangeLine]:
    """The cage's exchanges of ``day`` per desk (its window, or the main bank), in order, each
    desk closed by its totals; a reversed exchange is followed by its compensating line."""
    by_desk: dict[str, list[ChangeLine]] = defaultdict(list)
    for event in Event.objects.filter(gaming_day=day, type__in=CHANGE_EVENTS).order_by("position"):
        data, amount = event.data, event.data["amount_cents"]
        desk = f"Guichet {data['window']}" if data.get("window") else MAIN_BANK
        if event.type in ("ForeignCurrencyExchanged", "ForeignExchangeReversed"):
            by_desk[desk].append(_foreign_change_line(desk, event))
            continue
        sale = event.type.startswith("ChipsPurchase")
        sign = -1 if event.type.endswith("Reversed") else 1
        words = {
            "ChipsPurchased": "Vente de plaques et jetons",
            "ChipsRedeemed": "Rachat de plaques et jetons (change inverse)",
            "ChipsPurchaseReversed": "Annulation d'une vente",
            "ChipsRedemptionReversed": "Annulation d'un rachat",
        }[event.type]
        by_desk[desk].append(
            ChangeLine(
                desk=desk,
                occurred_at=_local(event.occurred_at),
                operation=words,
                patron=data.get("patron", ""),
                especes_recues_cents=sign * amount if sale else 0,
                especes_remises_cents=0 if sale else sign * amount,
                jetons_remis_cents=sign * amount if sale else 0,
                jetons_recus_cents=0 if sale else sign * amount,
                caissier=event.actor,
                events=str(event.position),
                compense=f"événement {data['reverses']}" if "reverses" in data else "",
            )
        )
    lines = []
    for desk in sorted(by_desk):
        rows = by_desk[desk]
        lines.extend(rows)
        lines.append(
            ChangeLine(
                desk=desk,
                occurred_at="",
                operation=TOTAL,
                patron="",
                especes_recues_cents=sum(r.especes_recues_cents for r in rows),
                especes_remises_cents=sum(r.especes_remises_cents for r in rows),
                jetons_remis_cents=sum(r.jetons_remis_cents for r in rows),
                jetons_recus_cents=sum(r.jetons_recus_cents for r in rows),
                caissier="",
                events="",
            )
        )
    return lines


def _foreign_change_line(desk: str, event: Event) -> ChangeLine:
    """Foreign banknotes bought at ``desk``: their house value paid in cash or in chips (the
    notes themselves, in their currency, named in the operation's words); a reversed purchase
    is its compensating line, the same amounts negative."""
    data, amount = event.data, event.data["amount_cents"]
    cash = data.get("paid_in") == "cash"
    notes = format_cents_fr(data["foreign_cents"], data["currency"])
    reversed_ = event.type == "ForeignExchangeReversed"
    sign = -1 if reversed_ else 1
    words = "Annulation d'un achat de billets étrangers" if reversed_ else "Achat de billets étrangers"
    return ChangeLine(
        desk=desk,
        occurred_at=_local(event.occurred_at),
        operation=f"{words}: {notes} au cours de {str(data['rate']).replace('.', ',')}",
        patron=data.get("patron", ""),
        especes_recues_cents=0,
        especes_remises_cents=sign * amount if cash else 0,
        jetons_remis_cents=0 if cash else sign * amount,
        jetons_recus_cents=0,
        caissier=event.actor,
        events=str(event.position),
        compense=f"événement {data['reverses']}" if "reverses" in data else "",
    )


def change_register(day: date) -> Register:
    """The change register per cashier desk: ``change_lines`` of ``day`` (cents)."""
    rows = change_lines(day)
    return Register(
        slug="registre-change",
        model="change",
        title="Registre des opérations de change, par caisse",
        basis=f"{ARRETE} (registre des changes)",
        period="par caisse et par journée",
        day=day,
        columns=CHANGE_COLUMNS,
        rows=tuple(rows),
        empty_reason="" if rows else "aucune opération de change ce jour",
        signatures=("Caissier", "Caissier principal"),
    )


BUILDERS = {
    "modele-10": model_10,
    "modele-11-bis": model_11_bis,
    "modele-12": model_12,
    "modele-13": model_13,
    "modele-16": model_16,
    "modele-22": model_22,
    "registre-change": change_register,
}
TITLES = {
    "modele-10": "Modèle 10: carnet d'avances",
    "modele-11-bis": "Modèle 11 bis: sommes trouvées et gains non réclamés",
    "modele-12": "Modèle 12: registre de contrôle",
    "modele-13": "Modèle 13: carnet des prélèvements",
    "modele-16": "Modèle 16: plaques et jetons",
    "modele-22": "Modèle 22: tronc",
    "registre-change": "Registre des changes, par caisse",
}


def all_registers(day: date) -> list[Register]:
    """Every register of ``day``, in ``BUILDERS``' order."""
    return [build(day) for build in BUILDERS.values()]
