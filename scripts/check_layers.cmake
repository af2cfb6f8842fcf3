# Fails when a source file of a layer includes a project header from outside the folders that layer
# may use (its own folder and the folders of the layers it links), so an upward include breaks the
# build instead of compiling by accident. Run by the `<layer>_layering` targets that the top-level
# CMakeLists.txt's dglsim_layer() creates:
#   cmake -DLAYER=name -DROOT=source-dir -DFILES="a.cc|a.h" -DALLOWED="fakeapi/client/|..." -DSTAMP=file -P check_layers.cmake
# Only quoted includes are checked (third-party headers come in with <...>); tests/ is exempt.
string(REPLACE "|" ";" FILES "${FILES}")
string(REPLACE "|" ";" ALLOWED "${ALLOWED}")
set(problems "")
foreach(file IN LISTS FILES)
  file(STRINGS "${ROOT}/${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([^\"]+)\".*$" "\\1" header "${line}")
    set(ok FALSE)
    foreach(prefix IN LISTS ALLOWED)
      string(FIND "${header}" "${prefix}" at)
      if(at EQUAL 0)
        string(LENGTH "${prefix}" plen)
        string(SUBSTRING "${header}" ${plen} -1 rest)
        # A folder's own headers, not those of its subfolders (each subfolder is a layer of its own).
        string(FIND "${rest}" "/" slash)
        if(slash EQUAL -1)
          set(ok TRUE)
          break()
        endif()
      endif()
    endforeach()
    if(NOT ok)
      string(APPEND problems "  ${file}: #include \"${header}\" is outside layer ${LAYER} (it may include: ${ALLOWED})\n")
    endif()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "layering: upward or sideways includes\n${problems}")
endif()
file(WRITE "${STAMP}" "ok\n")
