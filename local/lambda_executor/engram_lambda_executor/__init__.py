"""Run LocalStack Lambda functions as local Python processes instead of Docker containers."""
