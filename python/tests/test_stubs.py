"""The type stubs describe the module that is built: the same names, the
same methods and the same parameters."""

import ast
import inspect
from pathlib import Path

import boxtree

STUBS = Path(boxtree.__file__).with_name("__init__.pyi")
PRIVATE = {"_MeshLike", "Volume", "MeshLike", "Pose"}


def stub_tree():
    return ast.parse(STUBS.read_text())


def test_the_stubs_ship_with_a_py_typed_marker():
    assert STUBS.exists() and STUBS.with_name("py.typed").exists()


def test_every_public_name_has_a_stub_and_every_stub_a_name():
    stubbed = {
        node.name if hasattr(node, "name") else node.targets[0].id
        for node in stub_tree().body
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.Assign))
    }
    assert stubbed - PRIVATE == set(boxtree.__all__)


def parameters(function):
    names = [a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs]
    return [n for n in names if n != "self"]


def test_methods_and_parameters_match():
    for node in stub_tree().body:
        if isinstance(node, ast.ClassDef) and node.name not in PRIVATE:
            runtime = getattr(boxtree, node.name)
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    member = getattr(runtime, item.name)
                    decorators = {getattr(d, "id", None) for d in item.decorator_list}
                    if "property" in decorators or item.name.startswith("__"):
                        continue
                    signature = inspect.signature(member)
                    runtime_names = [p for p in signature.parameters if p != "self"]
                    assert runtime_names == parameters(item), f"{node.name}.{item.name}"
                elif isinstance(item, ast.AnnAssign):
                    assert hasattr(runtime, item.target.id), f"{node.name}.{item.target.id}"
        elif isinstance(node, ast.FunctionDef):
            runtime_names = list(inspect.signature(getattr(boxtree, node.name)).parameters)
            assert runtime_names == parameters(node), node.name
