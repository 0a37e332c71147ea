import Testing

/// Every fleet test starts real servers (redis-server, an HTTP server) and some wait on
/// leases: they run one at a time so they neither crowd the two cores nor each other.
@Suite(.serialized) enum FleetTests {}
