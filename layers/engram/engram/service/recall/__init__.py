"""The recall chain: what crosses between steps (``request``), what each step reads and how it is
run (``steps``, the reads themselves in ``readers`` and ``small_layers``), one plan (``plan``), two
runners (``runners``)."""

from .plan import RECALL_PLAN, RecallPlan
from .request import RecallRequest, StepResult
from .runners import recall, run_in_process, run_on_step_functions, run_step

__all__ = ["RECALL_PLAN", "RecallPlan", "RecallRequest", "StepResult", "recall", "run_in_process",
           "run_on_step_functions", "run_step"]
