"""Judge agreement (LF-VideoQA App. G, Table 8) and importers of real judge labels.

from pipelines.agreement import agreement_report, import_storysumm, import_fables
report = agreement_report(store, "storysumm")     # .pairs, .fleiss, .alpha, .confusions
"""

from pipelines.agreement.fables import import_fables
from pipelines.agreement.report import AgreementReport, agreement_report
from pipelines.agreement.stats import (
    cohen_kappa,
    confusion,
    fleiss_kappa,
    krippendorff_alpha_nominal,
    raw_agreement,
)
from pipelines.agreement.storysumm import import_storysumm

__all__ = [
    "AgreementReport",
    "agreement_report",
    "cohen_kappa",
    "confusion",
    "fleiss_kappa",
    "import_fables",
    "import_storysumm",
    "krippendorff_alpha_nominal",
    "raw_agreement",
]
