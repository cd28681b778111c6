"""Django app of curation: it owns the audit trail's tables."""

from django.apps import AppConfig


class CurationConfig(AppConfig):
    name = "memoria.curation"
    label = "curation"
    verbose_name = "Curation and audit"
    default_auto_field = "django.db.models.BigAutoField"
