"""Django app of background jobs: it owns the jobs table."""

from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "memoria.jobs"
    label = "jobs"
    verbose_name = "Background jobs"
    default_auto_field = "django.db.models.BigAutoField"
