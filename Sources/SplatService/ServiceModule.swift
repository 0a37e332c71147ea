import SplatCore

// SplatService: whole jobs built from the stages below it (decode, frame decision, render,
// image output). The CLI is a thin face over this module.
