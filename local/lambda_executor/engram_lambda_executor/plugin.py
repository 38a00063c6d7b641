"""The plux plugin LocalStack looks up by the name in LAMBDA_RUNTIME_EXECUTOR."""

from localstack.services.lambda_.invocation.plugins import RuntimeExecutorPlugin


class LocalProcessExecutorPlugin(RuntimeExecutorPlugin):
    name = "local-process"

    def load(self, *args, **kwargs):
        # Imported lazily, like LocalStack's own docker plugin, so that listing plugins stays cheap.
        from .executor import LocalProcessRuntimeExecutor

        return LocalProcessRuntimeExecutor
