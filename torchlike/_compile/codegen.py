"""A small builder of straight-line Python functions (used for guards and for replaying a
program's effects): source lines, constants bound as closure variables, fresh local names."""


class Source:
    """Lines of one function body; `const(obj)` names an object the body uses."""

    def __init__(self):
        self.lines = []
        self.consts = []
        self.const_names = {}          # id -> name
        self.n_local = 0

    def const(self, obj):
        name = self.const_names.get(id(obj))
        if name is None:
            name = self.const_names[id(obj)] = f"k{len(self.consts)}"
            self.consts.append(obj)
        return name

    def lit(self, value):
        """`value` as source: a literal for plain ints/strs/bools/None and tuples of ints."""
        if value is None or type(value) in (int, str, bool) or (
                type(value) is tuple and all(type(x) is int for x in value)):
            return repr(value)
        return self.const(value)

    def emit(self, line):
        self.lines.append(line)

    def local(self, expr, prefix="v"):
        name = f"{prefix}{self.n_local}"
        self.n_local += 1
        self.emit(f"{name} = {expr}")
        return name

    def function(self, signature, namespace, filename):
        """Compile the body as `def <signature>:` and return the function."""
        names = ", ".join(f"k{i}" for i in range(len(self.consts)))
        src = "\n".join([f"def make({names}):", f"    def {signature}:"] +
                        ["        " + line for line in self.lines] +
                        [f"    return {signature.split('(')[0]}", ""])
        ns = dict(namespace)
        exec(compile(src, filename, "exec"), ns)
        return ns["make"](*self.consts)
