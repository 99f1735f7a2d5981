"""Shared bits of the host unit tests: import path and sample agent logs."""
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))


def agent_log(loads, boot_taint=0, rmmods=None, done=True, noise=True):
    """KTAP as guest/agent prints it. loads: list of dicts with module,
    before, errno, after, taint, kmsg (list)."""
    lines = []
    if noise:
        lines += ["SeaBIOS (version 1.16.2-debian-1.16.2-1)",
                  "[    0.912345] Run /init as init process"]
    lines += ["KTAP version 1", f"1..{len(loads) + 2}",
              "# release: 6.1.0-57-amd64", f"# tainted: {boot_taint}",
              "ok 1 boot"]
    for n, load in enumerate(loads, start=2):
        lines += [f"# module: {load['module']}",
                  f"# tainted_before: {load['before']}",
                  f"# errno: {load['errno']}",
                  f"# errname: {'0' if not load['errno'] else 'ENOENT'}",
                  f"# tainted_after: {load['after']}",
                  f"# module_taint: {load['taint']}"]
        lines += [f"# kmsg: {m}" for m in load.get("kmsg", [])]
        lines.append(f"{'ok' if not load['errno'] else 'not ok'} {n} "
                     f"insmod {load['module']}")
    if rmmods is None:
        rmmods = [ld["module"] for ld in reversed(loads) if not ld["errno"]]
    lines += [f"# rmmod: {m} errno=0" for m in rmmods]
    lines += [f"# tainted: {loads[-1]['after'] if loads else boot_taint}",
              f"ok {len(loads) + 2} unload"]
    if done:
        lines.append("# ndisbench-agent: done")
    return "\r\n".join(lines) + "\r\n"


# The check groups the judging tests walk through.
MODULE_CHECKS = ("load", "taint", "driverloader", "control")
NET_CHECKS = ("dhcp", "ping", "tcp")


def roles_of(check_names):
    """The module roles a cell without a device loads for these checks,
    in load order."""
    from ndisbench_lib import devices
    from ndisbench_lib.cell.plan import needs
    return list(needs(devices.DEVICES["none"], check_names).roles)


def judge(check, policy, exp, log, roles, base_bits, sink_bytes=None,
          fixture="", native="", air=None, iw_ssid="", config=None,
          **facts):
    """One check's verdict as the cell pipeline has the registry judge it
    (cell/judge.py judge_cell). sink_bytes: what the check's host sink
    counted; facts: more CellFacts fields (lease, gpl_imports,
    own_loader_abi, ...)."""
    from ndisbench_lib.checks import registry
    from ndisbench_lib.checks.check import CellFacts
    from ndisbench_lib.devices import Device
    sys_file = facts.pop("fixture_sys", "")
    device = Device("cell", "the judged cell's device", fixture=fixture,
                    native_driver=native, connect_ssid=iw_ssid,
                    driver_files=((sys_file, ""),) if sys_file else ())
    return registry.judge(check, CellFacts(
        log, exp, policy, roles, base_bits, device, config,
        sinks={check: sink_bytes}, air=air, **facts))


def judge_cell(device_name, check_names, serial, policy="2.6.25-rc4",
               base_bits=12288, status="done"):
    """Every check's verdict of one cell as run_plan has judge_cell make
    them from the guest's serial log (a kernel 'k' of the policy)."""
    from ndisbench_lib import devices, kernels
    from ndisbench_lib import cell
    from ndisbench_lib.guest import machine
    exp = kernels.load_expectations()
    kernel = kernels.Kernel("k", "debian", exp.policies[policy])
    plan = cell.plan.CellPlan(kernel, devices.DEVICES[device_name],
                              tuple(check_names), exp, pathlib.Path("/x"))
    boot = machine.BootResult(status, 0, 3.0, 1.0, serial)
    prep = cell.plan.Prepared(kernel, base_bits=base_bits)
    return cell.judge.judge_cell(plan, prep, boot)
