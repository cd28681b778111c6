"""Users' roles and the memory groups they may see."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "memoria.accounts"
    label = "accounts"
