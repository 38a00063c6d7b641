"""Working state of a session: working memory's versioned fields (``sessions``) and the task
lifecycle (``tasks``)."""
