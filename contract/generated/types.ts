// Generated from contract/openapi.yaml by `npm run generate`. Do not edit.
export interface paths {
    "/manualProduction/rest/v1/orders/info/{number}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The order number, URL-encoded in the path. */
                number: string;
            };
            cookie?: never;
        };
        /**
         * Get the information of one order
         * @description The order header with its containers, charges and lots. The answer describes exactly the order identified by `number`.
         */
        get: operations["getOrderInfo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/goodsReception/rest/v1/lot-transfers/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a lot transfer
         * @description Moves `amount` of a lot from a source scan code to a target scan code. Answers the created transfer.
         */
        post: operations["createLotTransfer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/goodsReception/rest/v1/test-samples/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a test sample
         * @description Creates a test sample for a lot. Answers the created sample.
         */
        post: operations["createTestSample"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description The order header. */
        Order: {
            id: number;
            orderNumber: string;
            customerId: number;
            status: string;
            orderDate: components["schemas"]["FullDate"];
            deliveryDate: components["schemas"]["FullDate"];
        };
        /** @description A container of the order. Its fields are not known (open object). */
        Container: Record<string, never>;
        Charge: {
            id: number;
            chargeNumber: string;
            lotNumber: number;
            quantity: number;
            status: string;
        };
        Lot: {
            id: number;
            lotNumber: string;
            supplierNr: number;
            articleNr: number;
            quantity: number;
            unit: string;
            deliveryDate: components["schemas"]["FullDate"];
            status: string;
            createdAt: components["schemas"]["DateTime"];
        };
        /** @description One order with its containers, charges and lots. */
        OrderInfo: {
            order: components["schemas"]["Order"];
            containers: components["schemas"]["Container"][];
            charges: components["schemas"]["Charge"][];
            lots: components["schemas"]["Lot"][];
        };
        /**
         * Format: date
         * @description RFC 3339 full-date (`YYYY-MM-DD`) in the profile; an unspecified string in the specification.
         * @example 2026-11-21
         */
        FullDate: string;
        /**
         * Format: date-time
         * @description RFC 3339 date-time in the profile; an unspecified string in the specification.
         * @example 2026-11-21T09:30:00Z
         */
        DateTime: string;
        /** @description The `id` of a lot (of some order). */
        LotId: number;
        ScanCode: string;
        /** @description The members of a lot transfer (request and response share this shape). */
        LotTransferFields: {
            readonly id?: number;
            fk_lot_id?: components["schemas"]["LotId"];
            source_scancode?: components["schemas"]["ScanCode"];
            target_scancode?: components["schemas"]["ScanCode"];
            amount?: number;
            /** @default false */
            completed?: boolean;
            /** @description Defaults to the `lotNumber` of the lot named by `fk_lot_id`. */
            lotnumber?: string;
            readonly created?: components["schemas"]["DateTime"];
            readonly modified?: components["schemas"]["DateTime"];
        };
        /** @description The request body of "create lot transfer". Server-assigned (`readOnly`) members a client sends must have the type they have in the answer (the request and the answer share one shape; a wrong type or `null` is a 400) and are then ignored. */
        LotTransferCreate: WithRequired<components["schemas"]["LotTransferFields"], "fk_lot_id" | "source_scancode" | "target_scancode" | "amount">;
        /** @description A created lot transfer, as answered. */
        LotTransfer: WithRequired<components["schemas"]["LotTransferFields"], "id" | "fk_lot_id" | "source_scancode" | "target_scancode" | "amount" | "completed" | "lotnumber" | "created" | "modified">;
        /** @description The members of a test sample (request and response share this shape). */
        TestSampleFields: {
            readonly id?: number;
            fk_lot_id?: components["schemas"]["LotId"];
            fk_user_id?: number;
            /** @description Defaults to the `lotNumber` of the lot named by `fk_lot_id`. */
            lotnumber?: string;
            /** @description Generated when omitted, unique (`S-000001`, `S-000002`, ...). */
            sample_number?: string;
            /** @default NEW */
            status?: string;
            /** @default  */
            notes?: string;
            readonly created?: components["schemas"]["DateTime"];
            readonly modified?: components["schemas"]["DateTime"];
        };
        /** @description The request body of "create test sample". Server-assigned (`readOnly`) members a client sends must have the type they have in the answer (the request and the answer share one shape; a wrong type or `null` is a 400) and are then ignored. */
        TestSampleCreate: WithRequired<components["schemas"]["TestSampleFields"], "fk_lot_id" | "fk_user_id">;
        /** @description A created test sample, as answered. */
        TestSample: WithRequired<components["schemas"]["TestSampleFields"], "id" | "fk_lot_id" | "fk_user_id" | "lotnumber" | "sample_number" | "status" | "notes" | "created" | "modified">;
        /** @description An error (RFC 9457 problem details), answered as `application/problem+json`. */
        Problem: {
            /** Format: uri-reference */
            type: string;
            title: string;
            status: number;
            detail: string;
            /** Format: uri-reference */
            instance?: string;
        };
        FieldError: {
            /**
             * Format: json-pointer
             * @description RFC 6901 JSON Pointer into the request body (`""` for the whole body).
             */
            pointer: string;
            detail: string;
        };
        /** @description A problem with one entry in `errors` per problem found in the request body. */
        ValidationProblem: {
            errors: components["schemas"]["FieldError"][];
        } & components["schemas"]["Problem"];
    };
    responses: {
        /** @description Malformed JSON, JSON that is not an object, or a body that breaks the schema (a server-assigned member of the wrong type included). */
        LotTransferBadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["ValidationProblem"];
            };
        };
        /** @description Malformed JSON, JSON that is not an object, or a body that breaks the schema (a server-assigned member of the wrong type included). */
        TestSampleBadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["ValidationProblem"];
            };
        };
        /** @description Missing `Authorization` header, a scheme other than Bearer, or a rejected token. */
        Unauthorized: {
            headers: {
                "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description No order has this number. */
        OrderNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The request body is larger than 1 MiB (`x-max-body-bytes`); a body up to that size is accepted. */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The request body is not `application/json` (a charset parameter is allowed). */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description A well-formed body whose `fk_lot_id` names no known lot. */
        UnknownLot: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["ValidationProblem"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: {
        /**
         * @description The bearer challenge (RFC 6750), with `error="invalid_token"` for a rejected token.
         * @example Bearer realm="goods", error="invalid_token"
         */
        "WWW-Authenticate": string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getOrderInfo: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The order number, URL-encoded in the path. */
                number: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The order. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrderInfo"];
                };
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["OrderNotFound"];
        };
    };
    createLotTransfer: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LotTransferCreate"];
            };
        };
        responses: {
            /** @description The created lot transfer. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LotTransfer"];
                };
            };
            400: components["responses"]["LotTransferBadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnknownLot"];
        };
    };
    createTestSample: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TestSampleCreate"];
            };
        };
        responses: {
            /** @description The created test sample. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TestSample"];
                };
            };
            400: components["responses"]["TestSampleBadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnknownLot"];
        };
    };
}
type WithRequired<T, K extends keyof T> = T & {
    [P in K]-?: T[P];
};
