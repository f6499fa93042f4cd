'use strict';
// The contract test with the platform vendor's Node.js SDK
// (cybersource-rest-client, pinned in package-lock.json): every operation
// of the areas the sandbox serves, through the SDK's API classes and
// request models, in each authentication mode. sandbox/sdk_contract_test.go
// starts the sandbox and runs this script; each operation's outcome is one
// JSON line on stdout, which the Go test asserts on:
//
//   {"mode": "jwt", "op": "refundCapture", "ok": true, "status": 201,
//    "missing": [], "error": "", "dropped": ["..."]}
//
// ok means the call answered 2xx, the SDK deserialised the answer into the
// operation's model class, and every field the spec names for the answer
// is set on the model (missing lists those that are not). dropped lists
// what the answer carried that the SDK's model has no place for (for
// information). The script never exits non-zero for a failed operation:
// the Go test reports them.
//
// Environment: SANDBOX_URL, MERCHANT_ID, PORTFOLIO_ID, KEY_ID, SECRET,
// P12_FILE and P12_PASSWORD (the P12 the Go test made), MODES
// (comma-separated: http_signature, jwt, jwt_p12, jwt_mle, jwt_p12_mle),
// WORK_DIR (scratch); for the two *_mle modes (response message-level
// encryption, the SDK's enableResponseMleGlobally) RESPONSE_MLE_PEM and
// RESPONSE_MLE_KID (jwt_mle: a PEM private key, whose kid the SDK must be
// given), RESPONSE_MLE_P12 and RESPONSE_MLE_P12_PASSWORD (jwt_p12_mle: a P12
// as the portal makes it, whose kid the SDK extracts itself,
// MLEUtility.js validateAndAutoExtractResponseMleKid).

const fs = require('fs');
const path = require('path');
const forge = require('node-forge');
const cs = require('cybersource-rest-client');

const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`environment ${k} is not set`);
  return v;
};
const base = env('SANDBOX_URL');
const host = new URL(base).host;
const mid = env('MERCHANT_ID');
const portfolio = env('PORTFOLIO_ID');

// sdkP12 writes the Go test's P12 again as the SDK reads one: the SDK finds
// its certificate by a friendlyName attribute holding "CN=<key alias>" (the
// portfolio with a meta key), which certificates from the platform's
// business center carry and Go's PKCS#12 encoder does not write. Reading
// the Go file here also shows that node-forge reads what go-pkcs12 writes.
function sdkP12() {
  const password = env('P12_PASSWORD');
  const der = fs.readFileSync(env('P12_FILE')).toString('binary');
  const p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(der), false, password);
  const key = p12.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag })[forge.pki.oids.pkcs8ShroudedKeyBag][0].key;
  const cert = p12.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag][0].cert;
  const serial = cert.subject.getField({ name: 'serialNumber' }).value;
  const out = forge.pkcs12.toPkcs12Asn1(key, [cert], password,
    { friendlyName: `serialNumber=${serial},CN=${portfolio}`, algorithm: '3des' });
  const dir = path.join(env('WORK_DIR'), 'keys');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'sdk.p12'), Buffer.from(forge.asn1.toDer(out).getBytes(), 'binary'));
  return { dir, password };
}

function config(mode) {
  const c = {
    runEnvironment: host, intermediateHost: base, merchantID: mid,
    useMetaKey: true, portfolioID: portfolio,
    logConfiguration: { enableLog: false },
  };
  switch (mode) {
    case 'http_signature':
      return { ...c, authenticationType: 'http_signature', merchantKeyId: env('KEY_ID'), merchantsecretKey: env('SECRET') };
    case 'jwt':
      return { ...c, authenticationType: 'jwt', jwtKeyType: 'SHARED_SECRET', merchantKeyId: env('KEY_ID'), merchantsecretKey: env('SECRET') };
    case 'jwt_p12': {
      const k = sdkP12();
      return { ...c, authenticationType: 'jwt', jwtKeyType: 'P12', keysDirectory: k.dir, keyFileName: 'sdk', keyAlias: portfolio, keyPass: k.password };
    }
    case 'jwt_mle':
      return { ...config('jwt'), enableResponseMleGlobally: true,
        responseMlePrivateKeyFilePath: env('RESPONSE_MLE_PEM'), responseMleKID: env('RESPONSE_MLE_KID') };
    case 'jwt_p12_mle':
      return { ...config('jwt_p12'), enableResponseMleGlobally: true,
        responseMlePrivateKeyFilePath: env('RESPONSE_MLE_P12'), responseMlePrivateKeyFilePassword: env('RESPONSE_MLE_P12_PASSWORD') };
  }
  throw new Error(`unknown mode ${mode}`);
}

// call runs one SDK operation and resolves with its outcome.
function call(fn) {
  return new Promise((resolve) => {
    try {
      fn((err, data, response) => resolve({ err, data, response }));
    } catch (e) {
      resolve({ err: e });
    }
  });
}

// get reads a dotted path of a model ("a.b.0.c").
function get(obj, p) {
  return p.split('.').reduce((o, k) => (o === undefined || o === null ? undefined : o[k]), obj);
}

// dropped lists the answer's fields the model did not keep.
function dropped(raw, model, prefix = '') {
  if (raw === null || typeof raw !== 'object' || model === null || typeof model !== 'object') return [];
  const out = [];
  for (const k of Object.keys(raw)) {
    const p = prefix ? `${prefix}.${k}` : k;
    if (model[k] === undefined) out.push(p);
    else if (!Array.isArray(raw[k])) out.push(...dropped(raw[k], model[k], p));
    else if (raw[k].length > 0) out.push(...dropped(raw[k][0], model[k][0], `${p}.0`));
  }
  return out;
}

const results = [];

// ABSENT, as a want value: the answer must not carry the field.
const ABSENT = Symbol('absent');

// run performs op and checks its answer: model is the class the SDK
// deserialises into, want maps a model path to true (must be set), ABSENT
// (must not be) or to the value it must have; rawTypes maps a path of the
// body as sent to the JSON type the SDK's model reads it as (a Boolean
// field sent as the string "N" deserialises as true).
async function run(mode, op, model, fn, want, rawTypes = {}) {
  const r = await call(fn);
  const status = r.response ? r.response.status : (r.err && r.err.status) || 0;
  const line = { mode, op, ok: false, status, missing: [], error: '', dropped: [] };
  if (r.err) {
    line.error = (r.err.response && r.err.response.text) || r.err.message || String(r.err);
  } else if (!(r.data instanceof model)) {
    line.error = `answer deserialised as ${r.data && r.data.constructor && r.data.constructor.name}, not the SDK's model`;
  } else {
    for (const [p, v] of Object.entries(want)) {
      const got = get(r.data, p);
      if (v === ABSENT) {
        if (got !== undefined && got !== null) line.missing.push(`${p}=${JSON.stringify(got)} (want absent)`);
        continue;
      }
      if (got === undefined || got === null || got === '' || (v !== true && String(got) !== String(v))) {
        line.missing.push(v === true ? p : `${p}=${JSON.stringify(got)} (want ${JSON.stringify(v)})`);
      }
    }
    let raw = r.response && r.response.text;
    try { raw = JSON.parse(raw); } catch (e) { raw = null; }
    for (const [p, type] of Object.entries(rawTypes)) {
      const got = raw && get(raw, p);
      if (typeof got !== type) line.missing.push(`${p}=${JSON.stringify(got)} in the body (want a JSON ${type}, as the SDK's model reads it)`);
    }
    line.ok = line.missing.length === 0;
    line.dropped = dropped(raw, r.data);
  }
  results.push(line);
  process.stdout.write(JSON.stringify(line) + '\n');
  return r.data || {};
}

const M = (cls, obj) => cls.constructFromObject(obj);
const billTo = { firstName: 'Ana', lastName: 'Diaz', address1: '1 Market St', locality: 'Austin', administrativeArea: 'TX',
  postalCode: '78701', country: 'US', email: 'ana@example.com' };
const card = (number) => ({ card: { number, expirationMonth: '12', expirationYear: '2031', type: '001' } });
const amounts = (totalAmount, currency = 'USD') => ({ amountDetails: { totalAmount, currency } });
// Level III data: line items with the six required fields, a purchase order.
const level3 = (total) => ({
  orderInformation: {
    ...amounts(total), billTo,
    invoiceDetails: { purchaseOrderNumber: 'PO-SDK-1', commodityCode: '44103103' },
    lineItems: [{ productCode: 'SKU-1', productName: 'Toner', commodityCode: '44103103', quantity: 2, unitOfMeasure: 'EA',
      unitPrice: (Number(total) / 2).toFixed(2), discountAmount: '0.00', taxAmount: '0.00', taxDetails: [{ rate: '0.08' }] }],
  },
  processingInformation: { purchaseLevel: '3' },
});

async function walk(mode, n) {
  const cfg = config(mode);
  const client = () => new cs.ApiClient();
  const plans = new cs.PlansApi(cfg, client());
  const subs = new cs.SubscriptionsApi(cfg, client());
  const pay = new cs.PaymentsApi(cfg, client());
  const capture = new cs.CaptureApi(cfg, client());
  const refund = new cs.RefundApi(cfg, client());
  const credit = new cs.CreditApi(cfg, client());
  const reversal = new cs.ReversalApi(cfg, client());
  const voids = new cs.VoidApi(cfg, client());
  const search = new cs.SearchTransactionsApi(cfg, client());
  const detail = new cs.TransactionDetailsApi(cfg, client());
  const bin = new cs.BinLookupApi(cfg, client());
  const ref = `SDK-${n}`;

  // Plans.
  const code = `SDK${n}-P`;
  const plan = await run(mode, 'createPlan', cs.CreatePlanResponse, (cb) => plans.createPlan(M(cs.CreatePlanRequest, {
    planInformation: { code, name: `Gold ${mode}`, description: 'SDK plan', billingPeriod: { length: '1', unit: 'M' }, billingCycles: { total: '12' } },
    orderInformation: { amountDetails: { currency: 'USD', billingAmount: '10.00', setupFee: '1.00' } },
  }), cb), { id: true, status: 'COMPLETED', 'planInformation.code': code, 'planInformation.status': 'ACTIVE' });
  await run(mode, 'getPlans(code)', cs.GetAllPlansResponse, (cb) => plans.getPlans({ offset: 0, limit: 100, code }, cb),
    { totalCount: 1, 'plans.0.id': plan.id, 'plans.0.planInformation.code': code, '_links.self.href': true });
  await run(mode, 'getPlans(status,name)', cs.GetAllPlansResponse, (cb) => plans.getPlans({ status: 'ACTIVE', name: `Gold ${mode}` }, cb),
    { totalCount: 1, 'plans.0.planInformation.name': `Gold ${mode}` });
  await run(mode, 'getPlan', cs.GetPlanResponse, (cb) => plans.getPlan(plan.id, cb), {
    id: plan.id, 'planInformation.code': code, 'planInformation.status': 'ACTIVE', 'planInformation.billingPeriod.length': '1',
    'planInformation.billingPeriod.unit': 'M', 'planInformation.billingCycles.total': '12',
    'orderInformation.amountDetails.billingAmount': '10.00', 'orderInformation.amountDetails.setupFee': '1.00',
    'orderInformation.amountDetails.currency': 'USD', '_links.self.href': true,
  });
  await run(mode, 'getPlanCode', cs.GetPlanCodeResponse, (cb) => plans.getPlanCode(cb), { code: true });
  await run(mode, 'updatePlan', cs.UpdatePlanResponse, (cb) => plans.updatePlan(plan.id, M(cs.UpdatePlanRequest, {
    planInformation: { billingCycles: { total: '24' } }, processingInformation: { subscriptionBillingOptions: { applyTo: 'NEW' } },
  }), cb), { id: plan.id, status: 'COMPLETED' });
  const spare = await run(mode, 'createPlan(draft)', cs.CreatePlanResponse, (cb) => plans.createPlan(M(cs.CreatePlanRequest, {
    planInformation: { name: 'Draft', status: 'DRAFT', billingPeriod: { length: '1', unit: 'W' }, billingCycles: { total: '4' } },
    orderInformation: { amountDetails: { currency: 'USD', billingAmount: '3.00' } },
  }), cb), { id: true, 'planInformation.status': 'DRAFT' });
  await run(mode, 'activatePlan', cs.ActivateDeactivatePlanResponse, (cb) => plans.activatePlan(spare.id, cb),
    { id: spare.id, 'planInformation.status': 'ACTIVE' });
  await run(mode, 'deactivatePlan', cs.ActivateDeactivatePlanResponse, (cb) => plans.deactivatePlan(spare.id, cb),
    { id: spare.id, 'planInformation.status': 'INACTIVE' });

  // A customer token, stored by a customer-initiated transaction (CIT).
  const cit = await run(mode, 'createPayment(CIT, TOKEN_CREATE)', cs.PtsV2PaymentsPost201Response, (cb) => pay.createPayment(M(cs.CreatePaymentRequest, {
    clientReferenceInformation: { code: `${ref}-CIT` },
    processingInformation: { actionList: ['TOKEN_CREATE'], actionTokenTypes: ['customer', 'instrumentIdentifier'], commerceIndicator: 'internet',
      authorizationOptions: { initiator: { type: 'customer', credentialStoredOnFile: true } } },
    paymentInformation: card('4111111111111111'), orderInformation: { ...amounts('1.00'), billTo },
  }), cb), { id: true, status: 'AUTHORIZED', 'tokenInformation.customer.id': true, 'processorInformation.networkTransactionId': true });
  const customer = get(cit, 'tokenInformation.customer.id');

  // Subscriptions and their payments.
  const sub = await run(mode, 'createSubscription', cs.CreateSubscriptionResponse, (cb) => subs.createSubscription(M(cs.CreateSubscriptionRequest, {
    clientReferenceInformation: { code: ref },
    subscriptionInformation: { planId: plan.id, name: `Sub ${mode}` },
    paymentInformation: { customer: { id: customer } },
  }), cb), { id: true, status: 'COMPLETED', 'subscriptionInformation.code': true, 'subscriptionInformation.status': true });
  await run(mode, 'getAllSubscriptions', cs.GetAllSubscriptionsResponse, (cb) => subs.getAllSubscriptions({ offset: 0, limit: 10, customerId: customer }, cb), {
    totalCount: 1, 'subscriptions.0.id': sub.id, 'subscriptions.0.subscriptionInformation.planId': plan.id,
    'subscriptions.0.planInformation.billingPeriod.unit': 'M', 'subscriptions.0.orderInformation.amountDetails.billingAmount': '10.00',
    'subscriptions.0.paymentInformation.customer.id': customer,
  });
  await run(mode, 'getAllSubscriptions(clientReferenceInformationCode)', cs.GetAllSubscriptionsResponse,
    (cb) => subs.getAllSubscriptions({ clientReferenceInformationCode: ref }, cb), { totalCount: 1, 'subscriptions.0.id': sub.id });
  await run(mode, 'subscriptionsIdPaymentsGet', cs.GetSubscriptionsPaymentsResponse, (cb) => subs.subscriptionsIdPaymentsGet(sub.id, { offset: 0, limit: 5, scheduledPaymentsCount: 3 }, cb), {
    totalCount: true, 'subscriptionPayment.0.id': true, 'subscriptionPayment.0.status': true, 'subscriptionPayment.0.billingAmount': true,
    'subscriptionPayment.0.billingCycle': true, '_links.self.href': true,
  });
  await run(mode, 'subscriptionsIdPaymentsPut', cs.GetSubscriptionsPaymentsResponse1, (cb) => subs.subscriptionsIdPaymentsPut(sub.id,
    M(cs.UpdatePayments, { billingCyclesToSkip: [3] }), cb), { status: 'COMPLETED', 'billingCyclesToSkip.0': 3 });
  await run(mode, 'updateSubscription', cs.UpdateSubscriptionResponse, (cb) => subs.updateSubscription(sub.id,
    M(cs.UpdateSubscription, { subscriptionInformation: { name: `Renamed ${mode}` } }), cb), { id: sub.id, status: 'ACCEPTED' });
  await run(mode, 'suspendSubscription', cs.SuspendSubscriptionResponse, (cb) => subs.suspendSubscription(sub.id, cb),
    { id: sub.id, 'subscriptionInformation.status': 'SUSPENDED' });
  await run(mode, 'getSubscription', cs.GetSubscriptionResponse, (cb) => subs.getSubscription(sub.id, cb), {
    id: sub.id, 'subscriptionInformation.status': 'SUSPENDED', 'subscriptionInformation.name': `Renamed ${mode}`,
    'reactivationInformation.missedPaymentsCount': '0', 'reactivationInformation.missedPaymentsTotalAmount': '0.00',
    '_links.activate.href': true,
  });
  await run(mode, 'activateSubscription', cs.ActivateSubscriptionResponse, (cb) => subs.activateSubscription(sub.id, { processMissedPayments: true }, cb),
    { id: sub.id, 'subscriptionInformation.status': 'ACTIVE' });
  await run(mode, 'cancelSubscription', cs.CancelSubscriptionResponse, (cb) => subs.cancelSubscription(sub.id, cb),
    { id: sub.id, 'subscriptionInformation.status': 'CANCELLED' });

  // Card payments with Level II/III, and their follow-ons.
  const auth = await run(mode, 'createPayment(authorization, Level II)', cs.PtsV2PaymentsPost201Response, (cb) => pay.createPayment(M(cs.CreatePaymentRequest, {
    clientReferenceInformation: { code: `${ref}-A` }, processingInformation: { commerceIndicator: 'internet' },
    paymentInformation: card('4485900000000007'),
    orderInformation: { ...amounts('120.00'), billTo, invoiceDetails: { purchaseOrderNumber: 'PO-SDK-1' } },
  }), cb), { id: true, status: 'AUTHORIZED', 'orderInformation.amountDetails.authorizedAmount': '120.00', '_links.capture.href': true,
    'processorInformation.approvalCode': true });
  const cap = await run(mode, 'capturePayment(Level III)', cs.PtsV2PaymentsCapturesPost201Response, (cb) => capture.capturePayment(
    M(cs.CapturePaymentRequest, { clientReferenceInformation: { code: `${ref}-C` }, ...level3('120.00') }), auth.id, cb),
  { id: true, status: 'PENDING', 'orderInformation.amountDetails.totalAmount': '120.00', 'orderInformation.invoiceDetails.level3TransmissionStatus': 'Y' });
  await run(mode, 'refundCapture', cs.PtsV2PaymentsRefundPost201Response, (cb) => refund.refundCapture(
    M(cs.RefundCaptureRequest, { clientReferenceInformation: { code: `${ref}-R` }, orderInformation: amounts('20.00') }), cap.id, cb),
  { id: true, status: 'PENDING', 'refundAmountDetails.refundAmount': '20.00', 'refundAmountDetails.currency': 'USD', '_links.void.href': true });
  const sale = await run(mode, 'createPayment(sale, Level III)', cs.PtsV2PaymentsPost201Response, (cb) => pay.createPayment(M(cs.CreatePaymentRequest, {
    clientReferenceInformation: { code: `${ref}-S` }, ...level3('50.00'),
    processingInformation: { capture: true, purchaseLevel: '3', commerceIndicator: 'internet' }, paymentInformation: card('5555443333111102'),
  }), cb), { id: true, status: 'AUTHORIZED', 'orderInformation.invoiceDetails.level3TransmissionStatus': 'Y' });
  await run(mode, 'refundPayment', cs.PtsV2PaymentsRefundPost201Response, (cb) => refund.refundPayment(
    M(cs.RefundPaymentRequest, { clientReferenceInformation: { code: `${ref}-RS` }, orderInformation: amounts('15.00') }), sale.id, cb),
  { id: true, 'refundAmountDetails.refundAmount': '15.00', 'refundAmountDetails.currency': 'USD' });
  const sale2 = await run(mode, 'createPayment(sale)', cs.PtsV2PaymentsPost201Response, (cb) => pay.createPayment(M(cs.CreatePaymentRequest, {
    processingInformation: { capture: true }, paymentInformation: card('4111111111111111'), orderInformation: { ...amounts('9.00'), billTo },
  }), cb), { id: true, status: 'AUTHORIZED' });
  await run(mode, 'voidPayment', cs.PtsV2PaymentsVoidsPost201Response, (cb) => voids.voidPayment(
    M(cs.VoidPaymentRequest, { clientReferenceInformation: { code: `${ref}-V` } }), sale2.id, cb),
  { id: true, status: 'VOIDED', 'voidAmountDetails.voidAmount': '9.00', 'voidAmountDetails.currency': 'USD' });
  await run(mode, 'voidCapture', cs.PtsV2PaymentsVoidsPost201Response, (cb) => voids.voidCapture(
    M(cs.VoidCaptureRequest, {}), cap.id, cb), { id: true, status: 'VOIDED' });
  const auth2 = await run(mode, 'createPayment(authorization)', cs.PtsV2PaymentsPost201Response, (cb) => pay.createPayment(M(cs.CreatePaymentRequest, {
    paymentInformation: card('4111111111111111'), orderInformation: { ...amounts('30.00'), billTo },
  }), cb), { id: true, status: 'AUTHORIZED' });
  await run(mode, 'authReversal', cs.PtsV2PaymentsReversalsPost201Response, (cb) => reversal.authReversal(auth2.id,
    M(cs.AuthReversalRequest, { reversalInformation: { ...amounts('30.00'), reason: 'order cancelled' } }), cb),
  { id: true, status: 'REVERSED', 'reversalAmountDetails.reversedAmount': '30.00' });
  await run(mode, 'createCredit(Level III)', cs.PtsV2CreditsPost201Response, (cb) => credit.createCredit(M(cs.CreateCreditRequest, {
    clientReferenceInformation: { code: `${ref}-CR` }, ...level3('40.00'), paymentInformation: card('4485900000000007'),
  }), cb), { id: true, status: 'PENDING', 'creditAmountDetails.creditAmount': '40.00', 'creditAmountDetails.currency': 'USD',
    // Level III status on payments and captures only: the credit's model
    // (PtsV2CreditsPost201Response) has an orderInformation without it.
    'orderInformation.invoiceDetails.level3TransmissionStatus': ABSENT });

  // A merchant-initiated transaction (MIT) on the stored credential.
  await run(mode, 'createPayment(MIT)', cs.PtsV2PaymentsPost201Response, (cb) => pay.createPayment(M(cs.CreatePaymentRequest, {
    clientReferenceInformation: { code: `${ref}-MIT` },
    processingInformation: { capture: true, commerceIndicator: 'recurring', authorizationOptions: { initiator: { type: 'merchant',
      storedCredentialUsed: true, merchantInitiatedTransaction: { reason: '7',
        previousTransactionId: get(cit, 'processorInformation.networkTransactionId') } } } },
    paymentInformation: { customer: { id: customer } }, orderInformation: amounts('10.00'),
  }), cb), { id: true, status: 'AUTHORIZED', 'processorInformation.networkTransactionId': true });

  // Healthcare, whose answer offers a void.
  const hc = await run(mode, 'createPayment(healthcare)', cs.PtsV2PaymentsPost201Response, (cb) => pay.createPayment(M(cs.CreatePaymentRequest, {
    paymentInformation: { card: { ...card('4715100000000006').card, productSubtype: 'HC' } },
    healthCareInformation: { amountDetails: [{ amountType: 'healthcare', amount: '40.00' }, { amountType: 'prescription', amount: '15.00' }] },
    orderInformation: { ...amounts('40.00'), billTo },
  }), cb), { id: true, status: 'AUTHORIZED', 'orderInformation.amountDetails.authorizedAmount': '40.00' });
  await run(mode, 'voidPayment(healthcare)', cs.PtsV2PaymentsVoidsPost201Response, (cb) => voids.voidPayment(M(cs.VoidPaymentRequest, {}), hc.id, cb),
    { id: true, status: 'VOIDED' });

  // Buy now, pay later: session, approval at the provider, authorization, capture.
  const bnplBase = { paymentInformation: { paymentType: { name: 'INVOICE', method: { name: 'AFTERPAY' } } },
    orderInformation: { ...amounts('60.00'), billTo, shipTo: { ...billTo, email: undefined } } };
  const sess = await run(mode, 'createSessionRequest', cs.PtsV2PaymentsPost201Response2, (cb) => pay.createSessionRequest(M(cs.CreateSessionReq, {
    ...bnplBase, clientReferenceInformation: { code: `${ref}-BNPL` }, processingInformation: { actionList: ['AP_SESSIONS'] },
    merchantInformation: { successURL: 'https://shop.example/ok', cancelURL: 'https://shop.example/cancel', failureURL: 'https://shop.example/fail' },
  }), cb), { id: true, status: 'PENDING', 'processorInformation.paymentUrl': true, 'processorInformation.token': true });
  await run(mode, 'updateSessionRequest', cs.PtsV2PaymentsPost201Response2, (cb) => pay.updateSessionRequest(M(cs.CreateSessionRequest, {
    orderInformation: amounts('60.00'),
  }), sess.id, cb), { id: sess.id, status: 'PENDING' });
  const token = get(sess, 'processorInformation.token');
  const checkout = await fetch(`${base}/sandbox/bnpl/checkout/${token}`);
  if (!checkout.ok) throw new Error(`checkout at the provider: ${checkout.status}`);
  const bnpl = await run(mode, 'createPayment(buy-now-pay-later)', cs.PtsV2PaymentsPost201Response, (cb) => pay.createPayment(M(cs.CreatePaymentRequest, {
    ...bnplBase, processingInformation: { actionList: ['AP_AUTH'] }, processorInformation: { preApprovalToken: token },
  }), cb), { id: true, status: 'AUTHORIZED' });
  await run(mode, 'refreshPaymentStatus', cs.PtsV2PaymentsPost201Response1, (cb) => pay.refreshPaymentStatus(bnpl.id, M(cs.RefreshPaymentStatusRequest, {
    paymentInformation: { paymentType: { name: 'INVOICE', method: { name: 'AFTERPAY' } } }, processingInformation: { actionList: ['AP_STATUS'] },
  }), cb), { id: bnpl.id, status: 'AUTHORIZED' });
  await run(mode, 'capturePayment(buy-now-pay-later)', cs.PtsV2PaymentsCapturesPost201Response, (cb) => capture.capturePayment(
    M(cs.CapturePaymentRequest, { orderInformation: amounts('60.00') }), bnpl.id, cb), { id: true, status: 'SETTLED' });

  // BIN lookup: a card of each platform the SDK lists
  // (TmsBinLookupPaymentAccountInformationFeatures.cardPlatform), its
  // Level II/III flags JSON booleans (the model's Boolean), true on the
  // business platforms; and a payout inquiry on a debit card.
  const flags = { 'paymentAccountInformation.features.commercialCardLevel2': 'boolean',
    'paymentAccountInformation.features.commercialCardLevel3': 'boolean' };
  for (const [number, platform, level23] of [['448590', 'COMMERCIAL', true], ['455701', 'BUSINESS', true],
    ['556677', 'CORPORATE', true], ['428208', 'GOVERNMENT', true], ['411111', 'CONSUMER', false]]) {
    await run(mode, `getAccountInfo(${platform})`, cs.InlineResponse2015, (cb) => bin.getAccountInfo(M(cs.CreateBinLookupRequest, {
      paymentInformation: { card: { number } },
    }), cb), { id: true, status: 'COMPLETED', 'paymentAccountInformation.features.accountFundingSource': true,
      'paymentAccountInformation.features.cardPlatform': platform, 'paymentAccountInformation.features.commercialCardLevel2': level23,
      'paymentAccountInformation.features.commercialCardLevel3': level23, 'issuerInformation.country': true }, flags);
  }
  await run(mode, 'getAccountInfo(payout)', cs.InlineResponse2015, (cb) => bin.getAccountInfo(M(cs.CreateBinLookupRequest, {
    paymentInformation: { card: { number: '4275330000000001' } }, processingInformation: { payoutOptions: { payoutInquiry: true } },
  }), cb), { status: 'COMPLETED', 'payoutInformation.pushFunds.moneyTransferFastFundsDomestic': 'Y',
    'payoutInformation.pushFunds.moneyTransferFastFundsCrossBorder': 'N' });

  // Transaction Search and transaction detail, by the SDK's models
  // (CreateSearchRequest; TssV2TransactionsPost201ResponseEmbeddedTransactionSummaries:
  // status at the top level, paymentInformation.customer.customerId;
  // TssV2TransactionsGet200Response). The time zone is one of the guide's
  // "Supported Time Zones" (GMT; UTC is not listed), the submitTimeUtc range
  // in the guide's two forms: date math and epoch milliseconds.
  const found = await run(mode, 'createSearch', cs.TssV2TransactionsPost201Response, (cb) => search.createSearch(M(cs.CreateSearchRequest, {
    save: false, name: `sdk ${mode}`, timezone: 'GMT', query: `clientReferenceInformation.code:${ref}-S AND submitTimeUtc:[NOW/DAY-7DAYS TO NOW/DAY+1DAY}`,
    offset: 0, limit: 2500, sort: 'id:asc',
  }), cb), { searchId: true, totalCount: 1, '_embedded.transactionSummaries.0.id': sale.id,
    '_embedded.transactionSummaries.0.submitTimeUtc': true, '_embedded.transactionSummaries.0.status': true,
    '_embedded.transactionSummaries.0.applicationInformation.applications.0.name': true,
    '_embedded.transactionSummaries.0.orderInformation.amountDetails.totalAmount': '50.00' });
  await run(mode, 'getSearch', cs.TssV2TransactionsPost201Response, (cb) => search.getSearch(found.searchId, cb),
    { searchId: found.searchId, totalCount: 1 });
  await run(mode, 'getTransaction', cs.TssV2TransactionsGet200Response, (cb) => detail.getTransaction(sale.id, cb), {
    id: sale.id, submitTimeUTC: true, rootId: true, reconciliationId: true, merchantId: mid, status: true,
    'applicationInformation.applications.0.name': true, 'orderInformation.amountDetails.totalAmount': '50.00',
    'paymentInformation.card.prefix': '555544', 'paymentInformation.card.suffix': '1102',
  });
  // A tokenized transaction: its summary names the customer token
  // (customer.customerId), its detail the customer and the instrument
  // identifier, which summaries never carry.
  await run(mode, 'createSearch(customer token, epoch ms)', cs.TssV2TransactionsPost201Response, (cb) => search.createSearch(M(cs.CreateSearchRequest, {
    save: false, name: `sdk ${mode} token`, timezone: 'GMT',
    query: `clientReferenceInformation.code:${ref}-CIT AND submitTimeUtc:[1000000000000 TO 4102444800000}`, offset: 0, limit: 2500, sort: 'id:asc',
  }), cb), { totalCount: 1, '_embedded.transactionSummaries.0.id': cit.id, '_embedded.transactionSummaries.0.status': 'AUTHORIZED',
    '_embedded.transactionSummaries.0.paymentInformation.customer.customerId': customer });
  await run(mode, 'getTransaction(customer token)', cs.TssV2TransactionsGet200Response, (cb) => detail.getTransaction(cit.id, cb), {
    id: cit.id, status: 'AUTHORIZED', 'paymentInformation.customer.id': customer, 'paymentInformation.customer.customerId': customer,
    'paymentInformation.instrumentIdentifier.id': true,
  });

  // Reporting: interchange clearing levels, chargebacks and retrievals
  // (InterchangeClearingLevelDetailsApi, ChargebackDetailsApi,
  // RetrievalDetailsApi: startTime, endTime and organizationId, no
  // paging), deserialised into the ReportingV3*Get200Response models. The
  // member is one the sandbox plants a subscription chargeback on
  // (disputes.go). The times go as strings: the SDK documents Date, but
  // writes its query with querystring.stringify, which sends a Date as an
  // empty value (ApiClient.buildRequestTarget).
  const from = '2000-01-01T00:00:00.000Z';
  const to = '2100-01-01T00:00:00.000Z';
  const clearingApi = new cs.InterchangeClearingLevelDetailsApi(cfg, client());
  await run(mode, 'getInterchangeClearingLevelDetails', cs.ReportingV3InterchangeClearingLevelDetailsGet200Response,
    (cb) => clearingApi.getInterchangeClearingLevelDetails(from, to, { organizationId: mid }, cb), {
      startDate: true, endDate: true, 'interchangeClearingLevelDetails.0.requestId': true,
      'interchangeClearingLevelDetails.0.organizationId': mid, 'interchangeClearingLevelDetails.0.transactionTime': true,
      'interchangeClearingLevelDetails.0.amount': true, 'interchangeClearingLevelDetails.0.currencyCode': true,
      'interchangeClearingLevelDetails.0.clearedLevel': true, 'interchangeClearingLevelDetails.0.merchantPricedLevel': true,
      'interchangeClearingLevelDetails.0.interchangeAmount': true, 'interchangeClearingLevelDetails.0.billbackAmount': true,
    });
  const cbApi = new cs.ChargebackDetailsApi(cfg, client());
  await run(mode, 'getChargebackDetails', cs.ReportingV3ChargebackDetailsGet200Response,
    (cb) => cbApi.getChargebackDetails(from, to, { organizationId: mid }, cb), {
      organizationId: mid, startTime: true, endTime: true, 'chargebackDetails.0.requestId': true,
      'chargebackDetails.0.reasonCode': '13.2', 'chargebackDetails.0.amount': true, 'chargebackDetails.0.currencyCode': true,
      'chargebackDetails.0.responseDueTime': true, 'chargebackDetails.0.time': true, 'chargebackDetails.1.reasonCode': '10.4',
    });
  const rrApi = new cs.RetrievalDetailsApi(cfg, client());
  await run(mode, 'getRetrievalDetails', cs.ReportingV3RetrievalDetailsGet200Response,
    (cb) => rrApi.getRetrievalDetails(from, to, { organizationId: mid }, cb), {
      organizationId: mid, 'retrievalDetails.0.requestId': true, 'retrievalDetails.0.amount': true,
      'retrievalDetails.0.responseDueTime': true, 'retrievalDetails.0.time': true, 'retrievalDetails.0.reasonCode': true,
    });
  // The same reports of the whole organization (reconcile's default
  // --dispute-scope): signed for the organization (merchantID the
  // portfolio), organizationId the organization. Every member's records in
  // one answer: each clearing record names its member in organizationId,
  // each record its member's processorMerchantId; member 1's two
  // chargebacks come first, member 2's (a near-miss) after them.
  const orgCfg = { ...cfg, merchantID: portfolio };
  const orgClearingApi = new cs.InterchangeClearingLevelDetailsApi(orgCfg, client());
  await run(mode, 'getInterchangeClearingLevelDetails(organization)', cs.ReportingV3InterchangeClearingLevelDetailsGet200Response,
    (cb) => orgClearingApi.getInterchangeClearingLevelDetails(from, to, { organizationId: portfolio }, cb), {
      'interchangeClearingLevelDetails.0.requestId': true, 'interchangeClearingLevelDetails.0.organizationId': true,
      'interchangeClearingLevelDetails.0.processorMerchantId': true,
    });
  const orgCbApi = new cs.ChargebackDetailsApi(orgCfg, client());
  await run(mode, 'getChargebackDetails(organization)', cs.ReportingV3ChargebackDetailsGet200Response,
    (cb) => orgCbApi.getChargebackDetails(from, to, { organizationId: portfolio }, cb), {
      organizationId: portfolio, 'chargebackDetails.0.requestId': true, 'chargebackDetails.0.processorMerchantId': `P${mid}`,
      'chargebackDetails.1.processorMerchantId': `P${mid}`, 'chargebackDetails.2.requestId': true, 'chargebackDetails.2.processorMerchantId': true,
    });
  const orgRrApi = new cs.RetrievalDetailsApi(orgCfg, client());
  await run(mode, 'getRetrievalDetails(organization)', cs.ReportingV3RetrievalDetailsGet200Response,
    (cb) => orgRrApi.getRetrievalDetails(from, to, { organizationId: portfolio }, cb), {
      organizationId: portfolio, 'retrievalDetails.0.requestId': true, 'retrievalDetails.0.processorMerchantId': `P${mid}`,
    });
  // Reporting: settlement and funding, by the SDK's operations
  // (PurchaseAndRefundDetailsApi, NetFundingsApi, PaymentBatchSummariesApi)
  // and models (ReportingV3*Get200Response*), over the span the Go test
  // names, for this member; the first request's values are the Go side's.
  const prd = new cs.PurchaseAndRefundDetailsApi(cfg, client());
  const nf = new cs.NetFundingsApi(cfg, client());
  const pbs = new cs.PaymentBatchSummariesApi(cfg, client());
  // The times as the SDK's example writes them (yyyy-MM-dd'T'HH:mm:ss.SSSZ):
  // a Date object reaches the query empty in the response-MLE modes.
  const start = new Date(env('REPORT_START')).toISOString();
  const end = new Date(env('REPORT_END')).toISOString();
  await run(mode, 'getPurchaseAndRefundDetails', cs.ReportingV3PurchaseRefundDetailsGet200Response,
    (cb) => prd.getPurchaseAndRefundDetails(start, end, { organizationId: mid, viewBy: 'requestDate', paymentSubtype: 'ALL', offset: 0, limit: 2000 }, cb), {
      offset: 0, limit: 2000, pageResults: true,
      'requestDetails.0.requestId': env('REPORT_REQUEST_ID'), 'requestDetails.0.cybersourceMerchantId': mid,
      'settlements.0.requestId': env('REPORT_REQUEST_ID'), 'settlements.0.amount': env('REPORT_AMOUNT'),
      'settlements.0.currencyCode': env('REPORT_CURRENCY'), 'settlements.0.cybersourceBatchId': env('REPORT_BATCH_ID'),
      'settlements.0.cybersourceBatchTime': true, 'settlements.0.transactionType': true, 'authorizations.0.time': true,
      'feeAndFundingDetails.0.totalFee': env('REPORT_TOTAL_FEE'), 'feeAndFundingDetails.0.feeCurrency': env('REPORT_CURRENCY'),
      'feeAndFundingDetails.0.interchangeDescription': true, 'feeAndFundingDetails.0.duesAssessments': true,
      'feeAndFundingDetails.0.discountAmount': true, 'feeAndFundingDetails.0.fundingAmount': true,
      'feeAndFundingDetails.0.fundingCurrency': true, 'settlementStatuses.0.status': 'Settled',
    });
  await run(mode, 'getNetFundingDetails', cs.ReportingV3NetFundingsGet200Response,
    (cb) => nf.getNetFundingDetails(start, end, { organizationId: mid }, cb), {
      startTime: true, endTime: true, 'netFundingSummaries.0.type': true, 'netFundingSummaries.0.fundedAmount': true,
      'totalPurchases.0.currency': true, 'totalPurchases.0.value': true, 'totalFees.0.value': true,
      'totalRefunds.0.value': true, 'totalChargebacks.0.value': true, 'netTotal.0.value': true,
    });
  await run(mode, 'getPaymentBatchSummary', cs.ReportingV3PaymentBatchSummariesGet200Response,
    (cb) => pbs.getPaymentBatchSummary(start, end, { organizationId: mid, rollUp: 'day', breakdown: 'selected_merchant' }, cb), {
      startTime: true, 'paymentBatchSummaries.0.merchantId': mid, 'paymentBatchSummaries.0.currencyCode': true,
      'paymentBatchSummaries.0.salesCount': true, 'paymentBatchSummaries.0.salesAmount': true,
      'paymentBatchSummaries.0.startTime': true, 'paymentBatchSummaries.0.paymentSubTypeDescription': true,
    });
}

(async () => {
  const modes = env('MODES').split(',');
  for (let i = 0; i < modes.length; i++) {
    try {
      await walk(modes[i], i + 1);
    } catch (e) {
      process.stdout.write(JSON.stringify({ mode: modes[i], op: 'script', ok: false, error: e.stack || String(e) }) + '\n');
    }
  }
})();
