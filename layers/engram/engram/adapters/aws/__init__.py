"""The AWS services: S3 (archive, its format and erasure; exports), Secrets Manager (the link
secret), Step Functions and EventBridge (``workflows``) and CloudWatch EMF metrics."""
