# cmake/embed.cmake - write a binary file as a C array.
#   cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed.cmake
# defines `const unsigned char NAME[]` and `const unsigned int NAME_len`.
file(READ ${IN} _hex HEX)
string(LENGTH "${_hex}" _n)
math(EXPR _n "${_n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _arr "${_hex}")
file(WRITE ${OUT} "/* generated from ${IN} by cmake/embed.cmake; do not edit */\n"
                  "const unsigned char ${NAME}[] = {${_arr}};\n"
                  "const unsigned int ${NAME}_len = ${_n};\n")
