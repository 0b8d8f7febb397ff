"""description_publisher started on a bad file: it stays up, says why, and serves after a reload.

Includes hostile XML (billion laughs, an external entity reading /etc/passwd): refused without
expanding anything, and the node keeps answering.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from robot_formats_interfaces.srv import Reload
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from .harness import ARM, DESCRIPTION_QOS, TF_STATIC_QOS, TIMEOUT, NodeProcess, RosSide

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE robot [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
  <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
  <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
  <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
  <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
  <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<robot name="laughs">
  <link name="&lol9;"/>
</robot>
"""

EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE robot [
  <!ENTITY secret SYSTEM "file:///etc/passwd">
]>
<robot name="xxe">
  <link name="base"><visual><geometry><mesh filename="&secret;"/></geometry></visual></link>
</robot>
"""


def _reload(ros: RosSide, process: NodeProcess, path: str) -> Reload.Response:
    client = ros.node.create_client(Reload, '/description_publisher/reload')
    request = Reload.Request()
    request.path = path
    started = time.monotonic()
    response = ros.call(client, request, process=process)
    assert time.monotonic() - started < TIMEOUT
    assert process.alive(), process.describe()
    ros.node.destroy_client(client)
    return response


def _serves_arm_after_reload(ros: RosSide, process: NodeProcess) -> None:
    """Subscribes first (so anything published earlier would arrive first), then reloads."""
    description = ros.subscribe(String, 'robot_description', DESCRIPTION_QOS)
    static = ros.subscribe(TFMessage, '/tf_static', TF_STATIC_QOS)
    ros.spin_until(lambda: description.subscription.get_publisher_count() >= 1
                   and static.subscription.get_publisher_count() >= 1,
                   what='matching the node\'s latched publishers', process=process)
    response = _reload(ros, process, str(ARM))
    assert response.success, response.message
    ros.spin_until(lambda: len(description) and len(static),
                   what='robot_description and /tf_static after the reload', process=process)
    assert description.messages[0].data == ARM.read_text(encoding='utf-8'), (
        'the first robot_description received is not the reloaded file')
    assert {t.child_frame_id for t in static.messages[0].transforms} == {'tool_frame'}


@pytest.mark.parametrize('kind', ['missing', 'empty'])
def test_bad_startup_keeps_running_then_serves_after_reload(launcher, tmp_path: Path,
                                                            kind: str) -> None:
    if kind == 'missing':
        missing = tmp_path / 'not_there.urdf'
        process, ros = launcher.publisher('missing', description_file=str(missing))
        log = process.wait_for_log('no such file')
        assert str(missing) in log
        expected_refusal = 'no such file'
    else:
        process, ros = launcher.publisher('empty')
        process.wait_for_log('description_file and robot_description are empty')
        expected_refusal = 'no path'
    # empty path = "the current file": still nothing usable
    response = _reload(ros, process, '')
    assert not response.success
    assert expected_refusal in response.message.lower(), response.message
    _serves_arm_after_reload(ros, process)
    # and Ctrl-C ends it cleanly
    started = time.monotonic()
    code = process.interrupt(timeout=15.0)
    assert code == 0, f'exit code {code} after SIGINT; {process.describe()}'
    assert time.monotonic() - started < 15.0
    assert 'Traceback' not in process.log(), process.log()


@pytest.mark.parametrize('name, text', [('billion_laughs.urdf', BILLION_LAUGHS),
                                        ('external_entity.urdf', EXTERNAL_ENTITY)])
def test_hostile_xml_is_refused(launcher, tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding='utf-8')
    process, ros = launcher.publisher(name.split('.')[0], description_file=str(path))
    log = process.wait_for_log(str(path))  # the error line names the file
    assert '[ERROR]' in log and 'entit' in log.lower(), log
    response = _reload(ros, process, str(path))
    assert not response.success
    assert str(path) in response.message and 'entit' in response.message.lower(), \
        response.message
    assert 'root:' not in response.message  # nothing from /etc/passwd leaks
    _serves_arm_after_reload(ros, process)
    assert 'root:' not in process.log() and 'lollollol' not in process.log()
