"""List first-parent commits of a mirror that say they close an issue, with their gold files.

usage: candidates.py OWNER/NAME [SINCE]   (prints TSV: fix, date, issues, n_gold, gold, subject)
"""
import re
import sys

from goldrules import git, gold_of

MIRRORS = "/work/.mirror"


def main():
    repo = sys.argv[1]
    since = sys.argv[2] if len(sys.argv) > 2 else "2021-01-01"
    mirror = f"{MIRRORS}/{repo.replace('/', '+')}/repo"
    owner, name = repo.split("/")
    ref = re.compile(
        r"(?i)\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\b:?\s+(?:issue\s+)?"
        r"(?:#|GH-|https://github\.com/" + re.escape(owner) + "/" + re.escape(name)
        + r"/issues/)(\d+)")
    log = git(mirror, "log", "--first-parent", f"--since={since}", "--format=%H%x00%P%x00%cs%x00%B%x01", "HEAD")
    for rec in log.split("\x01"):
        rec = rec.strip("\n")
        if not rec:
            continue
        sha, parents, date, msg = rec.split("\x00", 3)
        parents = parents.split()
        if not parents:
            continue
        base = parents[0]
        text = msg
        if len(parents) > 1:  # a merge: the branch's own commits carry the references
            text += git(mirror, "log", "--format=%B", f"{base}..{parents[1]}")
        found = {int(n) for n in ref.findall(text)}
        # the changelog entry the fix adds (pallets' :issue:`N`, towncrier files, issue links)
        diff = git(mirror, "diff", "--no-renames", "-U0", base, sha, "--", ":(glob)**/CHANGE*",
                   ":(glob)**/changelog*", ":(glob)**/Changelog*", ":(glob)**/ChangeLog*", ":(glob)**/changelog.d/**", ":(glob)**/HISTORY*", ":(glob)**/changes/**")
        for line in diff.splitlines():
            if line.startswith("+++ b/"):
                m = re.search(r"(?:changelog\.d|changes)/(\d+)\.", line)
                if m:
                    found.add(int(m.group(1)))
            elif line.startswith("+"):
                found.update(int(n) for n in re.findall(r":(?:issue|bug):`(\d+)`", line))
                found.update(int(n) for n in re.findall(
                    r"github\.com/" + re.escape(owner) + "/" + re.escape(name) + r"/issues/(\d+)", line))
        issues = sorted(found)
        pr = re.findall(r"\(#(\d+)\)", msg.splitlines()[0]) or re.findall(r"Merge pull request #(\d+)", msg)
        issues = [n for n in issues if str(n) not in pr]
        if not issues:
            continue
        gold, added = gold_of(mirror, base, sha)
        if not gold or len(gold) > 5:
            continue
        subject = msg.splitlines()[0]
        print("\t".join([sha[:12], date, ",".join(map(str, issues)), str(len(gold)), " ".join(gold), subject[:100]]))


if __name__ == "__main__":
    main()
