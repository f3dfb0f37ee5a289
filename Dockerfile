# The AutoVerifier image for the Prefect worker (construction rounds, evaluation).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PREFECT_SERVER_ANALYTICS_ENABLED=false
WORKDIR /app
COPY pyproject.toml setup.py MANIFEST.in README.md ./
COPY verifier_runtime ./verifier_runtime
COPY autoverifier ./autoverifier
COPY flows ./flows
COPY tasks ./tasks
RUN pip install --no-cache-dir uv && uv pip install --system --compile-bytecode -e '.[llm,construct,eval,scale]'
COPY configs ./configs
COPY prefect.yaml ./
COPY rulebank ./rulebank
