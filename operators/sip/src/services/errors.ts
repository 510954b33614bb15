/** A service cannot be rendered because of the user's input (a missing Secret, an invalid key): not retried hot. */
export class ServiceInputError extends Error {
  override readonly name = 'ServiceInputError';
}
