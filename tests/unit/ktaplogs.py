"""KTAP logs for the check tests, two kinds.

Real ones: serial logs that real cells printed, kept as data files beside
the tests that read them (<package>/test_data/<cell>.ktap, named by the
cell's folder in the run). Each is cut to the agent's KTAP (from `KTAP
version 1` to its done line; the QEMU command line and the firmware's
lines before it, and the power-down line after, are left out) with the
console's CR LF line ends made LF; nothing else is changed.

Synthetic ones: the one log of a network cell (boot, bind, associate,
dhcp, the test under judgement, unload) that the check tests vary fact by
fact."""
import pathlib

UNIT = pathlib.Path(__file__).resolve().parent


def real_log(package: str, cell: str) -> str:
    """The serial log a real cell printed, as stored in
    tests/unit/<package>/test_data/<cell>.ktap."""
    return (UNIT / package / "test_data" / f"{cell}.ktap").read_text()


def net_cell_log(test: str, ifname: str = "eth0", bind: str = "ok",
                 unload: str = "# tainted: 0\n",
                 mac: str = "52:54:00:12:34:57") -> str:
    """A six-test agent log: boot, bind, associate, dhcp all ok (bind's
    result is `bind`), then `test` (the lines of test 5, its result line
    last), then `unload` (the lines before test 6's result)."""
    return ("KTAP version 1\n1..6\n# tainted: 0\nok 1 boot\n"
            f"# ifname: {ifname}\n# mac: {mac}\n"
            f"{bind} 2 bind {ifname}\n# carrier_ms: 12\nok 3 associate\n"
            "# address: 10.0.2.15\nok 4 dhcp\n"
            + test + unload + "ok 6 unload\n# ndisbench-agent: done\n")


def tcp_test(result: str = "ok", seconds: str = "9.1") -> str:
    """Test 5 of net_cell_log as the agent's tcp stream of 4 MiB."""
    return (f"# bytes_sent: 4194304\n# seconds: {seconds}\n"
            f"{result} 5 tcp\n")
