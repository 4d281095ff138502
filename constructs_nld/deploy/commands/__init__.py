"""The commands of ``deploy.py``, one module each: deploy, verify, uninstall, soak, cutover. None imports another."""
