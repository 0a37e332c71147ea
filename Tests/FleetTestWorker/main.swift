// Filled in with the StreamConsumer crash tests.
print("FleetTestWorker: no arguments handled yet")
