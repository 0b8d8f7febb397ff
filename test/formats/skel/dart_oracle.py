"""What dartpy 6.20 makes of SKEL files, run in a subprocess (DART segfaults or loops forever on
some inputs, so it never runs in the test process).

Usage: python dart_oracle.py JOBS.json OUT.jsonl
JOBS: [{"path": ..., "seed": int, "configurations": n}, ...] or
      [{"path": ..., "positions": [[world q], ...]}, ...] (configurations given by the caller).
OUT: one JSON line per job, written and flushed as soon as the job is done, so the caller
knows which file DART died on. Per job: "loaded", world time_step/gravity, per skeleton its
name, DoFs (joint, index in joint, joint type, euler axis order, actuator, position/velocity/
force limits, damping, friction, spring, initial velocity), initial positions, and per body its
gravity flag, world transform at the initial positions, mass, local COM and moment of inertia;
then "configurations": drawn positions (uniform in [-2, 2] per DoF, ``random.Random(seed)``)
and every body's world transform there.
"""

from __future__ import annotations

import json
import random
import sys

import numpy as np


def _bodies(world) -> dict[str, list[list[float]]]:
    out = {}
    for s in range(world.getNumSkeletons()):
        skeleton = world.getSkeleton(s)
        for b in range(skeleton.getNumBodyNodes()):
            body = skeleton.getBodyNode(b)
            out[f'{skeleton.getName()}::{body.getName()}'] = \
                body.getWorldTransform().matrix().tolist()
    return out


def _euler_order(joint) -> str:
    """'xyz' or 'zyx', measured (dartpy cannot convert getAxisOrder()'s enum): the first
    coordinate alone rotates about x for xyz and about z for zyx."""
    saved = joint.getPositions()
    joint.setPositions([0.3, 0.0, 0.0])
    motion = (np.linalg.inv(joint.getTransformFromParentBodyNode().matrix())
              @ joint.getRelativeTransform().matrix()
              @ joint.getTransformFromChildBodyNode().matrix())
    joint.setPositions(saved)
    rotation = motion[:3, :3]
    if abs(rotation[0, 0] - 1.0) < 1e-12:
        return 'xyz'
    if abs(rotation[2, 2] - 1.0) < 1e-12:
        return 'zyx'
    return 'unknown'


def _skeleton(skeleton) -> dict:
    dofs: list = [None] * skeleton.getNumDofs()
    for j in range(skeleton.getNumJoints()):
        joint = skeleton.getJoint(j)
        order = None
        if joint.getType() == 'EulerJoint':
            order = _euler_order(joint)
        actuator = str(joint.getActuatorType()).rsplit('.', 1)[-1].lower()
        for i in range(joint.getNumDofs()):
            dof = skeleton.getDof(joint.getIndexInSkeleton(i))
            dofs[joint.getIndexInSkeleton(i)] = {
                'joint': joint.getName(), 'index_in_joint': i, 'type': joint.getType(),
                'axis_order': order, 'dart_name': joint.getDofName(i), 'actuator': actuator,
                'position_limits': [dof.getPositionLowerLimit(), dof.getPositionUpperLimit()],
                'velocity_limits': [dof.getVelocityLowerLimit(), dof.getVelocityUpperLimit()],
                'force_limits': [dof.getForceLowerLimit(), dof.getForceUpperLimit()],
                'damping': dof.getDampingCoefficient(), 'friction': dof.getCoulombFriction(),
                'spring_stiffness': dof.getSpringStiffness(),
                'rest_position': dof.getRestPosition(), 'velocity': dof.getVelocity()}
    bodies = []
    for b in range(skeleton.getNumBodyNodes()):
        body = skeleton.getBodyNode(b)
        inertia = body.getInertia()
        bodies.append({'name': body.getName(), 'gravity': body.getGravityMode(),
                       'mass': inertia.getMass(),
                       'local_com': list(inertia.getLocalCOM()),
                       'moment': inertia.getMoment().tolist()})
    return {'name': skeleton.getName(), 'mobile': skeleton.isMobile(), 'dofs': dofs,
            'soft_bodies': skeleton.getNumSoftBodyNodes(),
            'positions': skeleton.getPositions().tolist(), 'bodies': bodies}


def _set_world_positions(world, q: list[float]) -> None:
    offset = 0
    for s in range(world.getNumSkeletons()):
        skeleton = world.getSkeleton(s)
        n = skeleton.getNumDofs()
        if n:
            skeleton.setPositions(q[offset:offset + n])
        offset += n


def run_job(dart, job: dict) -> dict:
    world = dart.utils.SkelParser.readWorld(job['path'])
    if world is None:
        return {'loaded': False}
    skeletons = [_skeleton(world.getSkeleton(s)) for s in range(world.getNumSkeletons())]
    total = sum(len(s['dofs']) for s in skeletons)
    answer = {'loaded': True, 'time_step': world.getTimeStep(),
              'gravity': list(world.getGravity()), 'skeletons': skeletons,
              'initial_frames': _bodies(world), 'configurations': []}
    positions = job.get('positions')
    if positions is None:
        rng = random.Random(job.get('seed', 0))
        positions = [[rng.uniform(-2.0, 2.0) for _ in range(total)]
                     for _ in range(job.get('configurations', 2))]
    for q in positions:
        _set_world_positions(world, q)
        answer['configurations'].append({'positions': q, 'frames': _bodies(world)})
    return answer


def main() -> None:
    import dartpy as dart
    jobs = json.loads(open(sys.argv[1], encoding='utf-8').read())
    with open(sys.argv[2], 'a', encoding='utf-8') as out:
        for job in jobs:
            try:
                answer = run_job(dart, job)
            except Exception as err:  # noqa: BLE001 - DART's verdict on this file
                answer = {'loaded': False, 'exception': f'{type(err).__name__}: {err}'}
            answer['path'] = job['path']
            out.write(json.dumps(answer) + '\n')
            out.flush()


if __name__ == '__main__':
    main()
