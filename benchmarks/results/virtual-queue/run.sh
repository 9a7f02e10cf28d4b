#!/usr/bin/env bash
# Two designs of the fair-borrowing extension's gate side by side on a quiet machine: places as tokens in a
# LinkedTransferQueue (QUEUE_JAR, built from c410caa) against the fair Semaphore (SEMAPHORE_JAR, built from 7fbfc56,
# the gate main keeps), with HikariCP's own hand-off and Dropwizard's Tomcat pool, through the driver of
# ../virtual-quiet; rows in runs/.
set -u
here=$(cd "$(dirname "$0")" && pwd)
QUEUE_JAR=${QUEUE_JAR:?the benchmarks jar built with the queue gate}
SEMAPHORE_JAR=${SEMAPHORE_JAR:?the benchmarks jar built with the semaphore gate}
OUT=$here CONFIGS="queue:hikari-fair-borrowing:$QUEUE_JAR semaphore:hikari-fair-borrowing:$SEMAPHORE_JAR \
raw:raw-hikari-no-metrics:$QUEUE_JAR tomcat-default:tomcat-default:$QUEUE_JAR" \
  exec bash "$here/../virtual-quiet/run.sh"
