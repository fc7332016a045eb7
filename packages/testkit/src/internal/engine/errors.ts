// The engine's one error: a programming error in seeding (unknown user or coin, bad product, supply overflow). Here
// rather than in Engine.ts so that the engine's parts throw it without importing the façade that builds them.
export class EngineError extends Error {
  override readonly name = "EngineError"
}
