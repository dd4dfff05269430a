/** Bodies the DingYue SDK 0.3.16 sends, as its models hold them (its Classes/OpenAPIs/Models/*.swift). */

/** UniqueUserObject at launch (API/ReportObject.swift:15-30, the values of API/UserProperties.swift). */
export const DINGYUE_LAUNCH = {
  osVersion: 'iOS 17.5',
  appVersion: '1.2.0',
  idfv: '5C1F0E5A-9D0B-4C55-9F4A-0E1C2A3B4D5E',
  device: 'iPhone15,2',
  connection: 'UNKNOWN',
  area: 'US',
  language: 'en-US',
  deviceInfo: { deviceCode: 'iPhone15,2', systemName: 'iOS', screenScale: '3.0', carriers: [{ carrierName: 'x' }] },
};
