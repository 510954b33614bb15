/** Events recorded on the NetworkAddonsConfig (upstream's reasons and messages). */
export interface ConfigEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export const modifiedEvent: ConfigEvent = {
  type: 'Normal',
  reason: 'Modified',
  message: 'Config spec was modified',
};
export const progressingEvent: ConfigEvent = {
  type: 'Normal',
  reason: 'Progressing',
  message: 'Operator is progressing',
};
export const availableEvent: ConfigEvent = {
  type: 'Normal',
  reason: 'Available',
  message: 'All applied components are available',
};
export const failedEvent = (reason: string, message: string): ConfigEvent => ({
  type: 'Warning',
  reason: `Failed: ${reason}`,
  message: `Operator failed: ${message}`,
});
