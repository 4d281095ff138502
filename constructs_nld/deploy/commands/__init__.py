"""The commands of ``deploy.py``, one module each: deploy, verify, uninstall, soak. None imports another."""
