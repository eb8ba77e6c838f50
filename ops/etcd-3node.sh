#!/usr/bin/env bash
# A three-member etcd cluster on loopback (ports 23791-23793 clients,
# 23801-23803 peers), data under ./etcd-data. Ctrl-C stops all three.
set -euo pipefail
cluster="m1=http://127.0.0.1:23801,m2=http://127.0.0.1:23802,m3=http://127.0.0.1:23803"
pids=()
for i in 1 2 3; do
  etcd --name "m$i" --data-dir "./etcd-data/m$i" \
    --listen-client-urls "http://127.0.0.1:2379$i" --advertise-client-urls "http://127.0.0.1:2379$i" \
    --listen-peer-urls "http://127.0.0.1:2380$i" --initial-advertise-peer-urls "http://127.0.0.1:2380$i" \
    --initial-cluster "$cluster" --initial-cluster-state new >"./etcd-data/m$i.log" 2>&1 &
  pids+=($!)
done
trap 'kill "${pids[@]}"' INT TERM EXIT
echo "etcd cluster: --etcd-servers=http://127.0.0.1:23791,http://127.0.0.1:23792,http://127.0.0.1:23793"
wait
