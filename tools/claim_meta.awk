# Reads a claim file's first comment and prints, tab-separated, the id and the title of its
# \claim{id}{title} block (the LaTeX title, its lines joined by blanks), as C string bodies
# (backslashes and quotes escaped).  Prints nothing when the file has no \claim block.
function cesc(s) { gsub(/\\/, "&&", s); gsub(/"/, "\\\"", s); return s }
# the brace group opening at text[i] ("{"): its contents; pos set past its "}"
function group(text, i,    d, c, out) {
    d = 0; out = ""
    for (; i <= length(text); i++) {
        c = substr(text, i, 1)
        if (c == "\\") { if (d > 0) out = out c substr(text, i + 1, 1); i++; continue }
        if (c == "{") { d++; if (d == 1) continue }
        if (c == "}") { d--; if (d == 0) { pos = i + 1; return out } }
        if (d > 0) out = out c
    }
    pos = -1; return out
}
NR == 1 && !/^\/\*/ { exit }
{
    line = $0
    sub(/^\/\*[[:space:]]?/, "", line); sub(/^[[:space:]]*\*[[:space:]]?/, "", line)
    text = text " " line
    if ($0 ~ /\*\//) exit
}
END {
    i = index(text, "\\claim{")
    if (!i) exit
    id = group(text, i + 6)
    if (pos < 0) exit
    while (substr(text, pos, 1) == " ") pos++
    title = group(text, pos)
    if (pos < 0) exit
    gsub(/[[:space:]]+/, " ", title); sub(/^ /, "", title); sub(/ $/, "", title)
    printf "%s\t%s\n", cesc(id), cesc(title)
}
