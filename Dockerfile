# The app image used by docker-compose.yml (Neo4j and Redis run beside it).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
WORKDIR /app
COPY requirements/ requirements/
COPY clients/ clients/
# torch's CPU build from its own index, pinned, so no CUDA packages are pulled in.
RUN pip install --no-cache-dir "torch==2.13.0" --index-url https://download.pytorch.org/whl/cpu \
 && pip install --no-cache-dir -c requirements/constraints.txt -r requirements/base.txt
COPY . .
RUN useradd --create-home memoria && mkdir -p /var/lib/memoria && chown memoria /var/lib/memoria
USER memoria
EXPOSE 8000
CMD ["python", "manage.py", "serve"]
