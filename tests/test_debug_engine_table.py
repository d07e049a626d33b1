"""The engine's one table of ICorDebug slots (compiler/debug/KiteDebugCom.cs) holds exactly the slots the engine
calls, each by name: a slot number written anywhere else, or a named slot nothing calls, fails here. Each call is
driven by tests/test_debug.py (breakpoints, frames, values, steps, pause, exceptions, calls in evaluate)."""

from __future__ import annotations

import re

from conftest import REPO

DEBUG = REPO / "compiler" / "debug"


def named() -> list[tuple[str, str]]:
    table = (DEBUG / "KiteDebugCom.cs").read_text()
    body = table.split("internal static class Slot", 1)[1].split("internal static class Iid", 1)[0]
    return re.findall(r"(\w+) = (\d+)", body)


def slots() -> dict[str, int]:
    return {name: int(number) for name, number in named()}


def test_every_slot_in_the_table_is_called_and_named_once():
    engine = (DEBUG / "KiteDebugEngine.cs").read_text() + (DEBUG / "KiteDebugCom.cs").read_text().split("internal static class Iid", 1)[1]
    table = slots()
    assert len(named()) == len(table), "a slot named twice"
    unused = sorted(name for name in table if f"Slot.{name}" not in engine)
    assert unused == []


def test_no_call_names_a_slot_by_number():
    engine = (DEBUG / "KiteDebugEngine.cs").read_text()
    assert re.findall(r"Com\.Call\(\w+, \d", engine) == []
    assert re.findall(r"Vt\(\w+\)\[\d", engine) == []


def test_the_slots_are_cordebug_idls_order():
    table = slots()
    # A few anchors from cordebug.idl: ICorDebug's DebugActiveProcess is its 6th method, ICorDebugController's
    # Continue its 2nd, ICorDebugILFrame's GetIP the first after ICorDebugFrame's eight.
    assert table["DebugActiveProcess"] == 3 + 5
    assert table["Continue"] == 3 + 1
    assert table["ILFrameGetIP"] == 3 + 8
    assert table["StepperStepOut"] == 3 + 6
    # ICorDebugThread's CreateEval is its 15th method; ICorDebugEval: CallFunction, NewObject,
    # NewObjectNoConstructor, NewString, NewArray, IsActive, Abort, GetResult, GetThread, CreateValue; ICorDebugEval2:
    # CallParameterizedFunction, CreateValueForType, NewParameterizedObject, NewParameterizedObjectNoConstructor,
    # NewParameterizedArray, NewStringWithLength.
    assert table["ThreadCreateEval"] == 3 + 14
    assert (table["EvalNewObjectNoConstructor"], table["EvalAbort"], table["EvalGetResult"], table["EvalCreateValue"]) == (5, 9, 10, 12)
    assert (table["Eval2CallParameterizedFunction"], table["Eval2NewStringWithLength"]) == (3, 8)
    # ICorDebugHandleValue: ICorDebugReferenceValue's eight, then GetHandleType, Dispose. ICorDebugType: GetType,
    # GetClass, EnumerateTypeParameters, GetFirstTypeParameter.
    assert table["HandleDispose"] == table["ReferenceDereference"] + 3
    assert (table["TypeGetType"], table["TypeGetClass"], table["TypeEnumerateTypeParameters"], table["TypeGetFirstTypeParameter"]) == (3, 4, 5, 6)
    assert table["GenericSetValue"] == table["GenericGetValue"] + 1
