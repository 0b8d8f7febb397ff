#!/usr/bin/env bash
# make demo: publish a bundled robot over real ROS 2 (DDS on loopback) and show what arrived.
# 1. summarise the example file; 2. start description_publisher in-process from config/demo.yaml;
# 3. receive robot_description and the TF tree in a second process and print it;
# 4. check the received poses against the library's forward kinematics; 5. stop cleanly.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/env.sh
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
export ROS_DOMAIN_ID="${ROS_DOMAIN_ID:-$(( (RANDOM % 90) + 110 ))}"
EXAMPLE=examples/urdf/arm_with_gripper.urdf
SETS=(--set shoulder_lift=0.3 --set elbow=0.6 --set finger_left=0.02)  # as config/demo.yaml
work="$(mktemp -d)"
bringup_pid=""
stop_bringup() {  # SIGINT = Ctrl-C: the node shuts down cleanly
  if [ -n "$bringup_pid" ]; then kill -INT "$bringup_pid" 2>/dev/null || true; wait "$bringup_pid" || true; fi
  bringup_pid=""
}
trap 'stop_bringup; rm -rf "$work"' EXIT

echo "== robot-formats info $EXAMPLE"
bin/robot-formats info "$EXAMPLE"

echo
echo "== robot-formats bringup config/demo.yaml  (ROS_DOMAIN_ID=$ROS_DOMAIN_ID, DDS on loopback)"
bin/robot-formats bringup config/demo.yaml --duration 120 > "$work/bringup.log" 2>&1 &
bringup_pid=$!

echo "== robot-formats tf-echo  (a separate process subscribing over DDS)"
bin/robot-formats tf-echo --min-frames 8 --timeout 60 | tee "$work/tree.txt"
bin/robot-formats tf-echo --min-frames 8 --timeout 60 --json > "$work/received.json"
bin/robot-formats frames "$EXAMPLE" "${SETS[@]}" --json > "$work/expected.json"

echo
echo "== received over DDS vs. robot_formats forward kinematics"
python - "$work/received.json" "$work/expected.json" <<'PY'
import json, sys
received = json.load(open(sys.argv[1]))['frames']
expected = json.load(open(sys.argv[2]))['frames']
worst = 0.0
for name, frame in expected.items():
    got = received[name]
    worst = max(worst, *(abs(a - b) for a, b in zip(got['xyz'], frame['xyz'])),
                min(sum(abs(a - b) for a, b in zip(got['quat'], frame['quat'])),
                    sum(abs(a + b) for a, b in zip(got['quat'], frame['quat']))))
print(f'{len(expected)} frames compared, largest difference {worst:.2e}')
sys.exit(0 if worst < 1e-9 and set(received) == set(expected) else 1)
PY
stop_bringup
echo "demo OK: robot_description and the TF tree were published and received over ROS 2."

echo
echo "== tools/demo_motion.py: a bundled motion played through sim_controller (MuJoCo servos)"
python tools/demo_motion.py
