"""The option line of xcuda's Python magics (%%cuda_check, %%cuda_timeline, %cuda_restart): `--NAME
VALUE` or `--NAME=VALUE` options and -h/--help, with a UsageError that names what is wrong. The
magics written in C++ read theirs in ipython/magic_support.cpp."""
import shlex


def usage_error(message):
    from IPython.core.error import UsageError  # IPython only where a magic runs
    return UsageError(message)


def asks_for_help(line):
    """Whether `line` is -h or --help alone: the magic prints its help and does nothing else."""
    return line.strip() in ("-h", "--help")


def help_or_no_arguments(name, line, help_text):
    """The line of a magic that takes no arguments: True when it is -h/--help (the help printed,
    the magic does nothing else), False when it is empty; UsageError for anything else."""
    arguments = line.strip()
    if asks_for_help(arguments):
        print(help_text)
        return True
    if arguments:
        raise usage_error(f"{name} takes no arguments (got {arguments!r}); {name} -h says what it does")
    return False


def cell_magic_on_a_line(line, help_text, how_to_use):
    """The line form of a cell magic (`%cuda_check` where `%%cuda_check` starts a cell): its help
    for -h/--help; anything else raises UsageError `how_to_use`."""
    if not asks_for_help(line):
        raise usage_error(how_to_use)
    print(help_text)


def parse_option_line(magic, line, defaults):
    """The options of `line` over `defaults` ({name: default}, names without dashes), or None when
    -h/--help asks for the magic's help. Raises UsageError for a word that is no option of it."""
    try:
        words = shlex.split(line)
    except ValueError as e:
        raise usage_error(f"%%{magic} {line}: {e}") from None
    values = dict(defaults)
    while words:
        word = words.pop(0)
        if asks_for_help(word):
            return None
        name, has_value, value = word[2:].partition("=") if word.startswith("--") else (None, "", "")
        if name not in defaults:
            raise usage_error(f"%%{magic}: unknown option {word!r}; %%{magic} -h lists them")
        if not has_value:
            if not words:
                raise usage_error(f"%%{magic} --{name} needs a value; %%{magic} -h says which")
            value = words.pop(0)
        values[name] = value
    return values
