import SplatCore
