"""Regulatory exports of a gaming day: files, zip stream, manifest, verifier.

``writer.export_to_dir`` / ``writer.export_zip_stream`` build the files; ``registry`` lets
other apps supply a CSV (the ledger imports neither games nor cashier); ``verify_export`` is
the standalone verifier (standard library only) that ``manage.py verify_export`` also runs.
"""
