# Writes OUT, a C file defining `const char SYM_text[]` (IN's bytes, NUL-terminated) and
# `const char SYM_file[]` (NAME, the path diagnostics show). Generated; do not edit OUT.
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUT}" "/* generated from ${NAME} by cmake/embed.cmake; do not edit */\n"
  "const char ${SYM}_text[] = {\n${bytes}0x00};\n"
  "const char ${SYM}_file[] = \"${NAME}\";\n")
