package tensoroverlay

// GlyphRow is glyphRow, for the tests of the font.
var GlyphRow = glyphRow
