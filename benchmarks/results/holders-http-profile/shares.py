"""Reads `jfr print --events jdk.ExecutionSample` on stdin; prints the share of the request threads' samples whose
code is the holders extension's own (the first frame from the top that is not the JDK's), HikariCP's, and the
library core's."""
import collections
import re
import sys

events = sys.stdin.read().split('jdk.ExecutionSample')[1:]
request = 0
owners = collections.Counter()
leaves = collections.Counter()
for event in events:
    thread = re.search(r'sampledThread = "([^"]*)"', event)
    if not thread or not thread.group(1).startswith('dw-'):
        continue
    request += 1
    stack = event.split('stackTrace = [')[1].split(']\n')[0] if 'stackTrace = [' in event else ''
    frames = [line.strip() for line in stack.strip().split('\n') if line.strip()]
    owner = 'other'
    for frame in frames:
        if frame.startswith(('java.', 'jdk.', 'sun.')):
            continue
        if 'dropwizardhikari.holders' in frame:
            owner = 'holders extension'
            leaves[re.sub(r'\s+line:.*', '', frame)] += 1
        elif 'com.zaxxer.hikari' in frame:
            owner = 'HikariCP'
        elif 'io.github.dropwizardhikari.' in frame:
            owner = 'the library (core and other extensions)'
        elif 'com.codahale.metrics' in frame:
            owner = 'Metrics'
        break
    owners[owner] += 1
print(f'request-thread samples: {request}')
for owner, count in owners.most_common():
    print(f'{owner}: {count} ({100 * count / max(request, 1):.2f}%)')
print('the extension\'s own samples by method:')
for leaf, count in leaves.most_common(15):
    print(f'  {count} {leaf}')
