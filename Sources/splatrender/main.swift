print("splatrender")
