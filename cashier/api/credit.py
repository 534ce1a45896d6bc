"""Casino credit and front money endpoints: credit lines, markers, deposits."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers

from core.ids import CodeField
from core.views import CommandView, StrictIntegerField
from staff.permissions import roles_allowed
from staff.roles import Role

from .. import credit_reports
from ..services import credit
from .reports import GAMING_DAY, ReportView

CAGE_DESK = frozenset({Role.CASHIER, Role.CAGE_SUPERVISOR})


class Amount(serializers.Serializer):
    amount_cents = StrictIntegerField(min_value=1)


class CreditLineSet(CommandView):
    """Approve or change a patron's credit line (cage supervisor). Event ``CreditLineApproved``."""

    permission_classes = [roles_allowed(write={Role.CAGE_SUPERVISOR})]
    success_status = 200

    class Input(serializers.Serializer):
        limit_cents = StrictIntegerField(min_value=0)

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return credit.credit_line_set(patron=code, **data, **ctx)


class MarkerIssue(CommandView):
    """Issue a marker for value chips: at the cage (cashier, cage supervisor) or, with ``table``,
    at that table (pit boss). 409 over the remaining credit. Event ``MarkerIssued``."""

    permission_classes = [roles_allowed(write=CAGE_DESK | {Role.PIT_BOSS})]

    class Input(Amount):
        table = CodeField(required=False, allow_null=True, default=None)

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return credit.marker_issue(patron=code, **data, **ctx)


class MarkerTransfer(CommandView):
    """The cage receives a table's marker. Event ``MarkerTransferred``."""

    permission_classes = [roles_allowed(write=CAGE_DESK)]
    success_status = 200

    class Input(serializers.Serializer):
        pass

    input_serializer = Input

    def perform(self, data, *, serial, **ctx):
        return credit.marker_transfer(serial=serial, **ctx)


class MarkerPay(CommandView):
    """A payment on a marker at the cage, in cash, chips or front money. Event ``MarkerPaid``."""

    permission_classes = [roles_allowed(write=CAGE_DESK)]
    success_status = 200

    class Input(Amount):
        method = serializers.ChoiceField(choices=credit.PAYMENT_METHODS)

    input_serializer = Input

    def perform(self, data, *, serial, **ctx):
        return credit.marker_pay(serial=serial, **data, **ctx)


class MarkerPayAtTable(CommandView):
    """A payment on a marker taken at an open table by its pit boss, in chips (into the tray) or
    cash (into the drop box). 400 over what is outstanding; 409 paid or voided. Event
    ``MarkerPaidAtTable``."""

    permission_classes = [roles_allowed(write={Role.PIT_BOSS})]
    success_status = 200

    class Input(Amount):
        table = CodeField()
        method = serializers.ChoiceField(choices=credit.TABLE_PAYMENT_METHODS)

    input_serializer = Input

    def perform(self, data, *, serial, **ctx):
        return credit.marker_pay_at_table(serial=serial, **data, **ctx)


class FrontMoneyDraw(CommandView):
    """A patron draws his front money in chips at an open table, recorded by its pit boss: the
    deposit reduced, the chips off the table's tray. 400 over his front money. Event
    ``FrontMoneyDrawn``."""

    permission_classes = [roles_allowed(write={Role.PIT_BOSS})]

    class Input(Amount):
        table = CodeField()

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return credit.front_money_draw(patron=code, **data, **ctx)


class FrontMoneyDeposit(CommandView):
    """A patron's cash left at the cage. Event ``FrontMoneyDeposited``."""

    permission_classes = [roles_allowed(write=CAGE_DESK)]
    input_serializer = Amount

    def perform(self, data, *, code, **ctx):
        return credit.front_money_deposit(patron=code, **data, **ctx)


class FrontMoneyWithdraw(CommandView):
    """A patron's front money handed back in cash. Event ``FrontMoneyWithdrawn``."""

    permission_classes = [roles_allowed(write=CAGE_DESK)]
    input_serializer = Amount

    def perform(self, data, *, code, **ctx):
        return credit.front_money_withdraw(patron=code, **data, **ctx)


@extend_schema(parameters=[GAMING_DAY])
class CreditOutstandingReport(ReportView):
    """Markers not yet paid and front money held, with the ledger's totals beside them."""

    slug = "credit-outstanding"

    def build(self, request):
        return credit_reports.credit_outstanding_report(self.gaming_day(request))
