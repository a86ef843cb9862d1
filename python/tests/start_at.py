"""One Start of an offer through OdaClient, at a shared instant: `python start_at.py URL CHAT
SUGGESTION AT` waits until the Unix time AT, starts the offer and prints the chat it was answered.
tests/node/python-package.test.mjs runs four at once, and one beside the page's Start button."""

from __future__ import annotations

import os
import sys
import time

from oda_tasks import OdaClient

url, chat, suggestion, at = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
with OdaClient(url, os.environ["ODA_TASKS_TOKEN"]) as oda:
    time.sleep(max(0.0, at - time.time()))
    print(oda.start(chat, suggestion))
