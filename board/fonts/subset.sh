#!/usr/bin/env bash
# Rebuilds board/static/cjk.woff, the board's embedded Chinese glyphs: the characters the
# page's labels use in both scripts, Simplified and Traditional (every label of board.js
# has both; listed in board/static/cjk-chars.txt), cut from WenQuanYi Micro Hei
# (Debian: apt-get install fonts-wqy-microhei python3-fonttools). Run it after changing
# a Chinese label; TestCJKFontCoversLabels fails until then.
set -euo pipefail
cd "$(dirname "$0")/../static"
src=${WQY:-/usr/share/fonts/truetype/wqy/wqy-microhei.ttc}
/usr/bin/python3 - <<'PY'
chars = set()
for f in ("board.js", "index.html"):
    chars |= {c for c in open(f, encoding="utf-8").read() if ord(c) >= 0x2E80}
open("cjk-chars.txt", "w", encoding="utf-8").write("".join(sorted(chars)) + "\n")
PY
/usr/bin/python3 -m fontTools.subset "$src" --font-number=0 --text-file=cjk-chars.txt --flavor=woff \
  --layout-features='' --no-hinting --desubroutinize --name-IDs='*' --output-file=cjk.woff
cp /usr/share/doc/fonts-wqy-microhei/copyright ../fonts/LICENSE-wqy-microhei.txt
ls -l cjk.woff
