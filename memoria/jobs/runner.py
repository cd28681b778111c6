"""Running jobs: a small thread pool inside the server process, every change of a job written to its row and
pushed to the group's watchers.

Why a thread pool and not a separate queue: the work is I/O on the graph server and the embedding model, both
already shared by the process; the rows in the Django database make a job outlive the page that started it and
the request that asked for it. What a pool cannot do is survive its process: a job a stopped process left
queued or running is marked failed ("interrupted") the next time the server starts (`jobs_recover`). Every kind
keeps stored data whole when it stops early (docs/api.md, "Jobs").
"""

from __future__ import annotations

import functools
import logging
import os
import queue
import socket
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connections
from django.utils import timezone

from memoria.errors import MemoriaError
from memoria.jobs.models import ACTIVE_STATES, Job, JobState
from memoria.live import JobChanged, publish_from_thread

logger = logging.getLogger(__name__)

PUBLISH_EVERY_SECONDS = 0.25  # progress is saved and pushed at most this often; state changes always
CANCEL_READ_EVERY_SECONDS = 0.5  # a cancel asked through another process is read from the row this often
INTERRUPTED = (
    "interrupted: the server process running this job stopped before it finished; an import stored nothing,"
    " a reindex kept the batches it stored, a community build kept the old communities. Start it again."
)
OWNER = f"{socket.gethostname()}:{os.getpid()}"


class JobCancelled(Exception):
    """Raised inside a job's work at its next step once a cancel was asked; the work's own transaction, if
    one is open, rolls back."""


def job_as_dict(job: Job) -> dict[str, Any]:
    """The job resource of the API and of the websocket frames (never the export's document itself)."""
    return {
        "id": str(job.id),
        "kind": job.kind,
        "group": job.group,
        "state": job.state,
        "requested_by": job.requested_by,
        "params": job.params,
        "progress": {"stage": job.stage, "done": job.done, "total": job.total},
        "cancel_requested": job.cancel_requested,
        "created_at": job.created_at.isoformat() if job.created_at else None,
        "started_at": job.started_at.isoformat() if job.started_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
        "result": job.result,
        "error": job.error or None,
    }


def job_publish(job_id: uuid.UUID) -> None:
    """Push the job as it is stored now to its group's watchers; a listener's outage never fails the job."""
    job = Job.objects.defer("output").get(pk=job_id)
    try:
        publish_from_thread(job.group, JobChanged(job=job_as_dict(job)))
    except Exception:
        logger.exception("could not publish job %s", job_id)


def job_update(job_id: uuid.UUID, **fields: Any) -> None:
    Job.objects.filter(pk=job_id).update(**fields)
    job_publish(job_id)


class Progress:
    """What a job's work reports through: its stage and counts, and the place a cancel is noticed."""

    def __init__(self, job_id: uuid.UUID, cancelled: threading.Event) -> None:
        self.job_id = job_id
        self.cancelled = cancelled
        self.stage_name = ""
        self.done = 0
        self.total: int | None = None
        self.partial: dict[str, Any] = {}  # what a cancelled job's result says it had done
        self.pause = settings.MEMORIA_JOB_STEP_PAUSE_MS / 1000
        self.published = 0.0
        self.cancel_read = time.monotonic()

    def stage(self, name: str, total: int | None = None) -> None:
        self.stage_name, self.done, self.total = name, 0, total
        self._report(force=True)

    def advance(self, count: int = 1) -> None:
        self.done += count
        self._report()

    def step(self, stage: str, done: int, total: int) -> None:
        """The (stage, done, total) form of the engine's progress callbacks."""
        changed = stage != self.stage_name
        self.stage_name, self.done, self.total = stage, done, total
        self._report(force=changed)

    def check(self) -> None:
        """JobCancelled once a cancel was asked, here or through another process."""
        if self.pause:
            time.sleep(self.pause)
        now = time.monotonic()
        if not self.cancelled.is_set() and now - self.cancel_read >= CANCEL_READ_EVERY_SECONDS:
            self.cancel_read = now
            if Job.objects.filter(pk=self.job_id, cancel_requested=True).exists():
                self.cancelled.set()
        if self.cancelled.is_set():
            raise JobCancelled()

    def _report(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self.published >= PUBLISH_EVERY_SECONDS:
            self.published = now
            job_update(self.job_id, stage=self.stage_name, done=self.done, total=self.total)
        self.check()


Work = Callable[[Progress], tuple[dict[str, Any], Any]]  # answers (result, output)


class JobRunner:
    """`workers` daemon threads taking jobs in the order they were queued.

    Daemon threads, so stopping the server never waits for a job: a job's open graph transaction dies with the
    process's connections (the server rolls it back), and its row, left running, is failed as interrupted when the
    server starts again.
    """

    def __init__(self, workers: int) -> None:
        self.queue: queue.SimpleQueue[tuple[uuid.UUID, Work]] = queue.SimpleQueue()
        self.cancels: dict[uuid.UUID, threading.Event] = {}
        self.lock = threading.Lock()
        for number in range(workers):
            threading.Thread(target=self._serve, name=f"memoria-job-{number}", daemon=True).start()

    def submit(self, job_id: uuid.UUID, work: Work) -> None:
        with self.lock:
            self.cancels[job_id] = threading.Event()
        self.queue.put((job_id, work))

    def _serve(self) -> None:
        while True:
            job_id, work = self.queue.get()
            self._run(job_id, work)

    def cancel(self, job_id: uuid.UUID) -> None:
        """Tell a job of this process to stop at its next step (a no-op for another process's)."""
        with self.lock:
            event = self.cancels.get(job_id)
        if event is not None:
            event.set()

    def _run(self, job_id: uuid.UUID, work: Work) -> None:
        close_old_connections()
        try:
            progress = Progress(job_id, self.cancels[job_id])
            queued = Job.objects.filter(pk=job_id, state=JobState.QUEUED)
            # Read before writing: a job cancelled while queued (or whose row never committed) takes no write lock.
            started = queued.exists() and queued.update(state=JobState.RUNNING, started_at=timezone.now())
            if started:  # else it was cancelled while queued
                job_publish(job_id)
                self._work(job_id, work, progress)
        except Exception:  # the database itself failed: nothing better to do than say so in the log
            logger.exception("job %s could not be run", job_id)
        finally:
            with self.lock:
                self.cancels.pop(job_id, None)
            connections.close_all()

    def _work(self, job_id: uuid.UUID, work: Work, progress: Progress) -> None:
        ending: dict[str, Any]
        try:
            progress.check()
            result, output = work(progress)
            ending = {"state": JobState.SUCCEEDED, "result": result, "output": output}
        except JobCancelled:
            ending = {"state": JobState.CANCELLED, "result": progress.partial or None, "error": "cancelled"}
        except MemoriaError as error:  # an outage, bad input found late, a conflict: its own words say what
            logger.warning("job %s failed: %s: %s", job_id, type(error).__name__, error)
            ending = {"state": JobState.FAILED, "result": progress.partial or None, "error": str(error)}
        except Exception:
            logger.exception("job %s failed", job_id)
            error = f"internal error (the server log has the details under job {job_id})"
            ending = {"state": JobState.FAILED, "result": progress.partial or None, "error": error}
        job_update(job_id, finished_at=timezone.now(), **ending)


@functools.cache
def job_runner() -> JobRunner:
    return JobRunner(settings.MEMORIA_JOB_WORKERS)


def _alive(owner: str) -> bool:
    """Whether the process that took a job may still hold it; another host's processes are not ours to judge."""
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname():
        return True
    if not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def jobs_recover() -> int:
    """Mark failed the jobs a stopped process of this host left queued or running; how many were."""
    lost = [job.pk for job in Job.objects.filter(state__in=ACTIVE_STATES).only("pk", "owner") if not _alive(job.owner)]
    for job_id in lost:
        Job.objects.filter(pk=job_id, state__in=ACTIVE_STATES).update(
            state=JobState.FAILED, error=INTERRUPTED, finished_at=timezone.now()
        )
    if lost:
        logger.warning("marked %d interrupted job(s) failed", len(lost))
    return len(lost)
