"""Roles and group access are managed in Django's admin too."""

from django.contrib import admin

from memoria.accounts.models import GroupMembership, Profile

admin.site.register(Profile)
admin.site.register(GroupMembership)
