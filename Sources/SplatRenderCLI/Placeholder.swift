public enum SplatRenderCLIPlaceholder {}
