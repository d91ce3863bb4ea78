"""Parses AWS CLI v1 commands with the real CLI, in one process, without reaching AWS.

Reads a JSON array of argv lists (without the leading `aws`) on stdin and prints a JSON array of
{"rc": int, "stderr": str}, one per command. Each command runs against an endpoint nothing listens
on (127.0.0.1:9) with dummy credentials and no retries: a command the CLI accepts fails with
"Could not connect to the endpoint URL"; a wrong one fails on its syntax before that. Used by
test/core/advice-commands.test.ts.
"""
import contextlib
import io
import json
import os
import sys

os.environ.update(
    AWS_ACCESS_KEY_ID="x",
    AWS_SECRET_ACCESS_KEY="y",
    AWS_MAX_ATTEMPTS="1",
    AWS_RETRY_MODE="standard",
    AWS_CONFIG_FILE=os.devnull,
    AWS_SHARED_CREDENTIALS_FILE=os.devnull,
    AWS_EC2_METADATA_DISABLED="true",
    AWS_PAGER="",
)
os.environ.pop("AWS_PROFILE", None)
os.environ.pop("AWS_ENDPOINT_URL", None)

from awscli.clidriver import create_clidriver  # noqa: E402


ACCEPTED = "Could not connect to the endpoint URL"
driver = None


def run(argv):
    # One driver serves many commands (loading it is most of the cost); a fresh one follows any
    # command it did not accept, so a failed parse leaves nothing behind for the next.
    global driver
    driver = driver or create_clidriver()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = driver.main(
                ["--endpoint-url", "http://127.0.0.1:9", "--region", "us-east-1"] + argv
            )
        except SystemExit as exit_:
            rc = exit_.code if isinstance(exit_.code, int) else 2
        except Exception as error:  # the CLI itself broke on the input: report, keep going
            rc, err = 254, io.StringIO(f"{type(error).__name__}: {error}")
    if ACCEPTED not in err.getvalue():
        driver = None
    return {"rc": rc, "stderr": err.getvalue()[-2000:]}


print(json.dumps([run(argv) for argv in json.load(sys.stdin)]))
