"""The guard's policy: a pure function from a tool call to a verdict (the policy of
examples/guard-extension/policy.ts, in Python). It knows nothing about the SDK, the host or stdio.

Shell commands are split into simple commands at `;`, `&`, `&&`, `||`, `|` and newlines; quotes are
not parsed. That errs on the side of caution: a quoted "rm -rf" inside an echo is refused too.
"""
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

#: Blocking rules, in the order they are checked.
REASONS = {
    "rm-rf": 'refused by guard: "rm -rf" deletes recursively without asking; delete specific paths instead',
    "pipe-to-shell": "refused by guard: piping a download into a shell runs code nobody reviewed; save the script and show it first",
    "sudo": "refused by guard: commands must not escalate privileges (sudo, doas, su)",
    "force-push": "refused by guard: a force-push rewrites shared history; use --force-with-lease",
    "raw-disk": "refused by guard: writing to a raw disk device or formatting one",
    "ssh-dir": "refused by guard: ~/.ssh is off limits",
    "env-file": "refused by guard: .env files hold secrets; the user edits them by hand",
}

Args = Dict[str, Any]


@dataclass(frozen=True)
class Verdict:
    action: str  # "allow", "block" or "rewrite"
    rule: Optional[str] = None  # a REASONS key, or "ls-long" for the rewrite
    reason: Optional[str] = None
    args: Args = field(default_factory=dict)


ALLOW = Verdict("allow")
# Run the command as another program: look at what follows.
WRAPPERS = {"sudo", "doas", "env", "nohup", "time", "command", "exec", "nice"}
ESCALATION = {"sudo", "doas", "su"}
SHELLS = r"(?:ba|z|da|k|fi)?sh"
DOWNLOAD_PIPED_TO_SHELL = re.compile(r"\b(?:curl|wget)\b[^|;&\n]*\|\s*(?:sudo\s+)?" + SHELLS + r"\b")
SHELL_RUNS_DOWNLOAD = re.compile(r"\b" + SHELLS + r"\b[^|;&\n]*(?:<\(|\$\()\s*(?:curl|wget)\b")
RAW_DEVICE = re.compile(r"^/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk)")
REDIRECT_TARGET = re.compile(r">{1,2}\|?\s*([^\s;&|<>()]+)")
# A plain `ls` with nothing but path arguments, and nothing else on the line.
PLAIN_LS = re.compile(r"^\s*ls((?:\s+[^\s;&|<>`$()-][^\s;&|<>`$()]*)*)\s*$")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def block(rule: str) -> Verdict:
    return Verdict("block", rule, REASONS[rule])


def basename(word: str) -> str:
    return word[word.rfind("/") + 1:]


def strip_quotes(word: str) -> str:
    return re.sub(r"^['\"]+|['\"]+$", "", word)


def simple_commands(command: str) -> List[List[str]]:
    """The simple commands of a command line, each as its words."""
    parts = re.split(r"&&|\|\||[;&|\n]", command)
    return [words for words in (part.split() for part in parts) if words]


def unwrap(words: List[str]) -> List[str]:
    """The words of the program actually run: leading VAR=value and wrappers such as sudo removed."""
    i = 0
    while i < len(words):
        if ASSIGNMENT.match(words[i]):
            i += 1
        elif basename(words[i]) in WRAPPERS:
            i += 1
            while i < len(words) and words[i].startswith("-"):  # the wrapper's own flags
                i += 1
        else:
            break
    return words[i:]


def escalates(words: List[str]) -> bool:
    """True when the command runs through sudo, doas or su, also behind env, nohup and the like."""
    for word in words:
        if ASSIGNMENT.match(word):
            continue
        name = basename(word)
        if name in ESCALATION:
            return True
        if name not in WRAPPERS and not word.startswith("-"):
            return False
    return False


def first(words: List[str]) -> str:
    return basename(words[0]) if words else ""


def is_recursive_force_rm(words: List[str]) -> bool:
    if first(words) != "rm":
        return False
    flags = [word for word in words[1:] if word.startswith("-")]
    short = "".join(flag for flag in flags if not flag.startswith("--"))
    recursive = bool(re.search(r"[rR]", short)) or "--recursive" in flags
    force = "f" in short or "--force" in flags
    return recursive and force


def is_force_push(words: List[str]) -> bool:
    return first(words) == "git" and "push" in words and ("--force" in words or "-f" in words)


def writes_raw_disk(words: List[str]) -> bool:
    program = first(words)
    if program == "mkfs" or program.startswith("mkfs."):
        return True
    return program == "dd" and any(word.startswith("of=") and RAW_DEVICE.match(word[3:]) for word in words)


def touches_ssh(path: str) -> bool:
    return ".ssh" in re.split(r"[\\/]+", strip_quotes(path))


def is_env_file(path: str) -> bool:
    name = basename(strip_quotes(path))
    return bool(re.match(r"^\.env(?:\..+)?$", name)) and not re.search(r"\.(?:example|sample|template)$", name)


def write_targets(command: str, commands: List[List[str]]) -> List[str]:
    """Paths a command line writes to: redirections, tee arguments, cp/mv destinations."""
    targets = [match.group(1) for match in REDIRECT_TARGET.finditer(command)]
    for words in map(unwrap, commands):
        program = first(words)
        operands = [word for word in words[1:] if not word.startswith("-")]
        if program == "tee":
            targets.extend(operands)
        if program in ("cp", "mv") and len(operands) >= 2:
            targets.append(operands[-1])
    return targets


def check_bash(args: Args) -> Verdict:
    command = args.get("command")
    if not isinstance(command, str):
        return ALLOW
    commands = simple_commands(command)
    programs = [unwrap(words) for words in commands]
    if any(map(is_recursive_force_rm, programs)):
        return block("rm-rf")
    if DOWNLOAD_PIPED_TO_SHELL.search(command) or SHELL_RUNS_DOWNLOAD.search(command):
        return block("pipe-to-shell")
    if any(map(escalates, commands)):
        return block("sudo")
    if any(map(is_force_push, programs)):
        return block("force-push")
    targets = write_targets(command, commands)
    if any(map(writes_raw_disk, programs)) or any(RAW_DEVICE.match(target) for target in targets):
        return block("raw-disk")
    if any(touches_ssh(word) for words in commands for word in words):
        return block("ssh-dir")
    if any(map(is_env_file, targets)):
        return block("env-file")
    ls = PLAIN_LS.match(command)
    if ls:
        return Verdict("rewrite", "ls-long", args={**args, "command": "ls -la" + ls.group(1)})
    return ALLOW


def check_file(tool_name: str, args: Args) -> Verdict:
    """read / write / edit: ~/.ssh is off limits; .env files may be read but not written."""
    path = args.get("path") if args.get("path") is not None else args.get("file_path")
    if not isinstance(path, str):
        return ALLOW
    if touches_ssh(path):
        return block("ssh-dir")
    if tool_name != "read" and is_env_file(path):
        return block("env-file")
    return ALLOW


def evaluate(tool_name: str, args: Args) -> Verdict:
    """Decides one tool call. Tools other than bash, read, write and edit are always allowed."""
    if tool_name == "bash":
        return check_bash(args)
    if tool_name in ("read", "write", "edit"):
        return check_file(tool_name, args)
    return ALLOW
