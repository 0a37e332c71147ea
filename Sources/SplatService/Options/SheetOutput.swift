/// A contact sheet and where it goes.
public struct SheetOutput: Sendable, Equatable {
    public var path: String
    public var plan: SheetPlan

    public init(path: String, plan: SheetPlan = SheetPlan()) {
        self.path = path
        self.plan = plan
    }
}
