"""Which memory groups a user may see, and with which role."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from memoria.accounts.roles import Role


class Profile(models.Model):
    """A user's role; kept beside Django's user so auth stays stock."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memoria_profile")
    role = models.CharField(max_length=16, choices=[(r.value, r.value) for r in Role], default=Role.VIEWER.value)

    def __str__(self) -> str:
        return f"{self.user} ({self.role})"


class GroupMembership(models.Model):
    """Grants a user access to one memory group (admins see every group without one)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_groups")
    group = models.CharField(max_length=64)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "group"], name="unique_user_group")]
        ordering = ["group"]

    def __str__(self) -> str:
        return f"{self.user} → {self.group}"
