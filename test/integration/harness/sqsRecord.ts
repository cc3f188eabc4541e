/** An SQS message as Lambda's event source mapping hands it to a function, for the tests that poll moto's queues themselves. */
import type { Message } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';

/** sqsRecordOf: `message`, received from the queue `queueArn` in `region`, as an SQSRecord. */
export const sqsRecordOf = (message: Message, queueArn: string, region: string): SQSRecord => {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'moto',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    // As Lambda hands them over: each with its string value and data type (receive with MessageAttributeNames ['All']).
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        { stringValue: value.StringValue, dataType: value.DataType ?? 'String', stringListValues: [], binaryListValues: [] },
      ]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
};
