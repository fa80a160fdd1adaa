import type { DomainErrorKind } from '../../core/errors';
import type { HttpErrorKind } from './http-error';

/** Every kind an API response can carry: the domain's and HTTP's own. */
export type ApiErrorKind = DomainErrorKind | HttpErrorKind;

/** The only place that knows how a domain error looks over HTTP. */
export interface HttpErrorShape {
  status: number;
  errorCode: string;
  /** Absent for P403, whose body carries only errorCode and errorMessage (spec). */
  errorName: string | undefined;
}

export const HTTP_ERRORS: Readonly<Record<ApiErrorKind, HttpErrorShape>> = {
  'invalid-request': { status: 400, errorCode: 'P400', errorName: 'invalid-request' },
  unauthorized: { status: 401, errorCode: 'P401', errorName: 'unauthorized' },
  'invalid-month-or-year': { status: 400, errorCode: 'P403', errorName: undefined },
  'not-found': { status: 404, errorCode: 'P404', errorName: 'not-found' },
  'idempotency-conflict': { status: 409, errorCode: 'P409', errorName: 'idempotency-conflict' },
  'invalid-currency': { status: 400, errorCode: 'P410', errorName: 'invalid-currency' },
  'invalid-user': { status: 400, errorCode: 'P412', errorName: 'invalid-user' },
  'payload-too-large': { status: 413, errorCode: 'P413', errorName: 'payload-too-large' },
  'partner-not-found': { status: 400, errorCode: 'P418', errorName: 'partner-not-found' },
  'key-not-permitted': { status: 403, errorCode: 'P440', errorName: 'key-not-permitted' },
  'withdrawal-not-found': { status: 404, errorCode: 'P421', errorName: 'withdrawal-not-found' },
  'too-many-requests': { status: 429, errorCode: 'P429', errorName: 'too-many-requests' },
  'too-many-operations': { status: 429, errorCode: 'P429', errorName: 'too-many-requests' },
  'invalid-exchange-lock': { status: 400, errorCode: 'P432', errorName: 'invalid-exchange-lock' },
  'insufficient-funds': { status: 400, errorCode: 'P433', errorName: 'insufficient-funds' },
  'invalid-date': { status: 400, errorCode: 'P435', errorName: 'invalid-date' },
  'limit-exceeded': { status: 400, errorCode: 'P442', errorName: 'limit-exceeded' },
  'address-not-allowlisted': { status: 400, errorCode: 'P441', errorName: 'address-not-allowlisted' },
  'withdrawal-address-not-found': { status: 404, errorCode: 'P404', errorName: 'not-found' },
  'internal-error': { status: 500, errorCode: 'P500', errorName: 'internal-error' },
  'service-unavailable': { status: 503, errorCode: 'P503', errorName: 'service-unavailable' },
  'operation-abandoned': { status: 503, errorCode: 'P503', errorName: 'service-unavailable' },
  'unknown-operation': { status: 500, errorCode: 'P500', errorName: 'internal-error' },
};

export interface ErrorBody {
  errorCode: string;
  errorName?: string;
  errorMessage?: string;
}

export function errorBody(kind: ApiErrorKind, message: string | undefined): ErrorBody {
  const { errorCode, errorName } = HTTP_ERRORS[kind];
  return {
    errorCode,
    ...(errorName === undefined ? {} : { errorName }),
    ...(message === undefined ? {} : { errorMessage: message }),
  };
}
