"""The recall chain: one plan (``plan``), the layer readers (``layers``), two runners (``runners``)."""

from .plan import RECALL_PLAN, RecallPlan, RecallRequest, StepResult
from .runners import BREAKER, recall, run_in_process, run_on_step_functions, run_step

__all__ = ["BREAKER", "RECALL_PLAN", "RecallPlan", "RecallRequest", "StepResult", "recall", "run_in_process",
           "run_on_step_functions", "run_step"]
