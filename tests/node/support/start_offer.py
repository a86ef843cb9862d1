# One client of a Start race: waits for the shared start time, then asks the
# chatHandler to start the offer and prints the chat id it answered.
import json
import os
import sys
import time
import urllib.request

url, at = sys.argv[1], float(sys.argv[2])
request = urllib.request.Request(
    url,
    data=b"{}",
    method="POST",
    headers={"Content-Type": "application/json", "Authorization": f"Bearer {os.environ['ODA_TASKS_TOKEN']}"},
)
time.sleep(max(0.0, at - time.time()))
with urllib.request.urlopen(request) as response:
    print(json.loads(response.read())["chatId"])
